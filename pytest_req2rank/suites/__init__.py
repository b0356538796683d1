"""Static benchmark suites: HumanEval and JSONL files."""

from __future__ import annotations

from pathlib import Path

from ..models import SuiteSpec, Task
from ._dynamic import DynamicOptions, load_dynamic
from ._errors import SuiteError, TemplateLibraryError
from ._humaneval import load_humaneval
from ._jsonl import load_jsonl


def load_suite(
    suite: SuiteSpec | str,
    *,
    rootdir: Path | None = None,
    seed: int = 0,
    dynamic: DynamicOptions | None = None,
) -> list[Task]:
    """Load the tasks of ``dynamic``, ``humaneval`` or ``jsonl:PATH``.

    A relative path resolves against ``rootdir`` (default: the current directory); the
    dynamic suite is drawn from ``seed`` with ``dynamic`` options.
    """
    if isinstance(suite, str):
        try:
            suite = SuiteSpec.parse(suite)
        except ValueError as exc:
            raise SuiteError(str(exc)) from None
    if suite.kind == "dynamic":
        return load_dynamic(dynamic or DynamicOptions(), seed=seed)
    if suite.kind == "humaneval":
        return load_humaneval()
    assert suite.path is not None  # a jsonl suite always has one
    return load_jsonl(rootdir / suite.path if rootdir is not None else suite.path)


__all__ = [
    "DynamicOptions",
    "SuiteError",
    "TemplateLibraryError",
    "load_humaneval",
    "load_jsonl",
    "load_suite",
]
