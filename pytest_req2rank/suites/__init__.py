"""Static benchmark suites: HumanEval and JSONL files."""

from __future__ import annotations

from pathlib import Path

from ..models import Task
from ._dynamic import DynamicOptions, load_dynamic
from ._errors import SeedLibraryError, SuiteError
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

    A relative path resolves against ``rootdir`` (default: the current directory); the
    dynamic suite is drawn from ``seed`` with ``dynamic`` options.
    """
    if spec == "dynamic":
        return load_dynamic(dynamic or DynamicOptions(), seed=seed)
    if spec == "humaneval":
        return load_humaneval()
    if spec.startswith("jsonl:"):
        path = Path(spec[len("jsonl:"):]).expanduser()
        if rootdir is not None:
            path = rootdir / path
        return load_jsonl(path)
    raise SuiteError(f"unknown suite {spec!r}; allowed: dynamic, humaneval, jsonl:PATH")


def suite_key(spec: str) -> str:
    """What makes two suite specs the same suite: the name, and for a JSONL file its dataset
    name (its file name), wherever the file lies (a baseline may come from another checkout)."""
    if spec.startswith("jsonl:"):
        return "jsonl:" + dataset_name(Path(spec[len("jsonl:"):]).stem)
    return spec


__all__ = [
    "DynamicOptions", "SeedLibraryError", "SuiteError", "dataset_name", "defines", "item_id",
    "load_dynamic", "load_humaneval", "load_jsonl", "load_suite", "suite_key",
]
