"""The benchmark items the plugin adds itself when a session asks for a benchmark but
collects no test that requests ``r2r_task``: ``pytest --r2r-suite=jsonl:my_suite.jsonl`` in a
directory that holds only that file. Their ids read ``req2rank::test_task[DATASET/TASK]``."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ..models import ItemResult, Task

NODE_ID = "req2rank"


def test_task(r2r_task: Task, r2r_evaluate: Callable[[Task], ItemResult]) -> None:
    """Benchmark the configured model on one task of the plan."""
    r2r_evaluate(r2r_task)


class BuiltinBenchmark(pytest.Module):
    """This module as a test module; collected from the imported module, not by path."""

    def _getobj(self) -> ModuleType:
        return sys.modules[__name__]

    def istestfunction(self, obj: object, name: str) -> bool:
        return obj is test_task  # whatever the project's python_functions say


def builtin_items(session: pytest.Session) -> list[pytest.Item]:
    module = BuiltinBenchmark.from_parent(session, path=Path(__file__), nodeid=NODE_ID)
    return [item for item in session.genitems(module) if isinstance(item, pytest.Item)]
