"""A run stopped because a model failed for good: what the summary says, and how to resume."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

_RESUME = "--r2r-resume"


def resume_command(args: Sequence[str], run_id: str) -> str:
    """The command that resumes run ``run_id``: pytest with this session's arguments, any
    earlier ``--r2r-resume`` replaced."""
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == _RESUME:
            skip = True
        elif not arg.startswith(_RESUME + "="):
            kept.append(arg)
    return shlex.join(["pytest", *kept, f"{_RESUME}={run_id}"])


def stopped_lines(reason: str, *, run_id: str, finished: int, planned: int,
                  args: Sequence[str], exit_code: int) -> list[str]:
    """The summary's lines for a run that stopped early because a model failed for good."""
    return [
        f"stopped: {reason}",
        (f"  {finished} of {planned} items finished and kept, {planned - finished} not run "
         f"(exit code {exit_code})"),
        f"  fix the cause, then resume: {resume_command(args, run_id)}",
    ]
