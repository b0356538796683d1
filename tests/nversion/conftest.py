"""Shared fixtures of the N-version tests: one process sandbox and an in-memory reference
cache for the session, the library and its tasks' definitions (HumanEval's, or the library's
own for its requirement tasks)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_req2rank.execution import ReferenceCache, grade
from pytest_req2rank.models import Task
from pytest_req2rank.nversion import load_library, requirement_tasks
from pytest_req2rank.nversion._library import LibraryTask
from pytest_req2rank.sandbox import ProcessSandbox
from pytest_req2rank.suites import load_humaneval

TIMEOUT_S = 3.0
"""Ceiling of one HumanEval ``check`` test's budget (the budget itself follows the reference)."""


@pytest.fixture(scope="session")
def nv_sandbox() -> Iterator[ProcessSandbox]:
    with ProcessSandbox() as box:
        yield box  # type: ignore[misc]


@pytest.fixture(scope="session")
def sandbox(nv_sandbox: ProcessSandbox) -> ProcessSandbox:
    return nv_sandbox


@pytest.fixture(scope="session")
def nv_cache() -> ReferenceCache:
    return ReferenceCache()


@pytest.fixture(scope="session")
def library() -> tuple[LibraryTask, ...]:
    return load_library()


@pytest.fixture(scope="session")
def humaneval_tasks() -> dict[str, Task]:
    return {task.task_id: task for task in load_humaneval()}


@pytest.fixture(scope="session")
def task_definitions(humaneval_tasks: dict[str, Task],
                     library: tuple[LibraryTask, ...]) -> dict[str, Task]:
    """Every library task's definition by task id: HumanEval's, or the library's own."""
    return {**humaneval_tasks, **{task.task_id: task for task in requirement_tasks(library)}}


def grade_code(task: Task, code: str, sandbox: ProcessSandbox) -> tuple[str, str | None]:
    """The final status of ``code`` on ``task``'s own tests (``check(candidate)``), and the reason."""
    result = grade(task, {"solution.py": code}, sandbox, timeout_s=TIMEOUT_S)
    return result.status, result.reason
