"""The benchmark: one item per task of the run plan (see ``pytest --help``, group req2rank)."""

from collections.abc import Callable

from pytest_req2rank.models import ItemResult, Task


def test_task(r2r_task: Task, r2r_evaluate: Callable[[Task], ItemResult]) -> None:
    r2r_evaluate(r2r_task)
