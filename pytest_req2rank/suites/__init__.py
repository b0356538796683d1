"""Static benchmark suites: HumanEval and JSONL files."""

from __future__ import annotations

from pathlib import Path

from ..models import Task
from ._dynamic import DynamicOptions, load_dynamic
from ._errors import SuiteError
from ._humaneval import load_humaneval
from ._ids import dataset_name, item_id
from ._jsonl import load_jsonl
from ._reference import defines


def load_suite(
    spec: str,
    *,
    rootdir: Path | None = None,
    seed: int = 0,
    dynamic: DynamicOptions | None = None,
) -> list[Task]:
    """Load the tasks of ``dynamic``, ``humaneval`` or ``jsonl:PATH``.

    Relative paths resolve against ``rootdir``; the dynamic suite is drawn from
    ``seed`` with ``dynamic`` options.
    """
    if spec == "dynamic":
        return load_dynamic(dynamic or DynamicOptions(), seed=seed)
    if spec == "humaneval":
        return load_humaneval()
    if spec.startswith("jsonl:"):
        path = Path(spec[len("jsonl:"):]).expanduser()
        if not path.is_absolute() and rootdir is not None and not path.exists():
            path = rootdir / path
        return load_jsonl(path)
    raise SuiteError(f"unknown suite {spec!r}; allowed: dynamic, humaneval, jsonl:PATH")


__all__ = ["DynamicOptions", "SuiteError", "load_dynamic", "dataset_name", "defines", "item_id", "load_humaneval", "load_jsonl", "load_suite"]
