"""Shared fixtures of the N-version tests: the library, its HumanEval tasks, one sandbox."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_req2rank.execution import grade
from pytest_req2rank.models import Task
from pytest_req2rank.nversion import LibraryTask, load_library
from pytest_req2rank.sandbox import ProcessSandbox
from pytest_req2rank.suites import load_humaneval

TIMEOUT_S = 3.0
"""Ceiling of one HumanEval ``check`` test's budget (the budget itself follows the reference)."""


@pytest.fixture(scope="session")
def library() -> tuple[LibraryTask, ...]:
    return load_library()


@pytest.fixture(scope="session")
def humaneval_tasks() -> dict[str, Task]:
    return {task.task_id: task for task in load_humaneval()}


@pytest.fixture(scope="session")
def sandbox() -> Iterator[ProcessSandbox]:
    box = ProcessSandbox()
    yield box
    box.close()


def grade_code(task: Task, code: str, sandbox: ProcessSandbox) -> tuple[str, str | None]:
    """The final status of ``code`` on ``task``'s own HumanEval tests, and the reason."""
    result = grade(task, {"solution.py": code}, sandbox, timeout_s=TIMEOUT_S)
    return result.status, result.reason
