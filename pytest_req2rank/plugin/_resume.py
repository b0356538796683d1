"""Resuming a run (``--r2r-resume``): the items it keeps are deselected, and a run that
stopped before its end prints the command that resumes it."""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path

import pytest

from ..options import spelling
from ._lookahead import task_id

_RESUME = spelling("cli", "resume")
_STORE_OPTIONS = (spelling("cli", "db"), spelling("cli", "dir"))
_STORE_VARIABLES = (spelling("env", "db"), spelling("env", "dir"))


def deselect_kept(config: pytest.Config, items: list[pytest.Item], kept: frozenset[str]) -> None:
    """Deselect the benchmark items a resumed run keeps: their verdicts stand, and they are
    neither run nor reported again (pytest counts them as deselected)."""
    chosen: list[pytest.Item] = []
    deselected: list[pytest.Item] = []
    for item in items:
        (deselected if task_id(item) in kept else chosen).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = chosen


def resume_command(config: pytest.Config, run_id: str, store: Path) -> str:
    """The command that resumes run ``run_id`` of ``store``: this session's command line with
    ``--r2r-resume=RUN_ID`` (in place of any it had), and ``--r2r-db`` when only the
    environment named the store (another shell may not have it); run it from the same
    directory."""
    args = _without_resume(config.invocation_params.args)
    named = any(arg == option or arg.startswith(option + "=")
                for arg in args for option in _STORE_OPTIONS)
    if not named and any(os.environ.get(variable, "").strip() for variable in _STORE_VARIABLES):
        args.append(f"{spelling('cli', 'db')}={store}")
    return shlex.join(["pytest", *args, f"{_RESUME}={run_id}"])


def _without_resume(args: Sequence[str]) -> list[str]:
    """``args`` without ``--r2r-resume=ID`` (or ``--r2r-resume ID``)."""
    kept: list[str] = []
    skip_value = False
    for arg in args:
        if skip_value:
            skip_value = False
        elif arg == _RESUME:
            skip_value = True
        elif not arg.startswith(_RESUME + "="):
            kept.append(arg)
    return kept


def stopped_lines(reason: str, *, finished: int, planned: int, command: str,
                  exit_code: int) -> list[str]:
    """The summary's lines for a run that stopped early because a model failed for good."""
    return [
        f"stopped: {reason}",
        (f"  {finished} of {planned} items finished and kept, {planned - finished} not run "
         f"(exit code {exit_code})"),
        f"  fix the cause, then resume: {command}",
    ]
