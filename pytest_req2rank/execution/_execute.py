"""One sandbox execution, retried once when the sandbox itself fails, and the process's own
failure (timeout, signal, non-zero exit) read from its outcome."""

from __future__ import annotations

import signal

from ..errors import Req2RankError
from ..models import TestStatus
from ..sandbox import ExecOutcome, ExecRequest, Sandbox

ATTEMPTS = 2
"""A sandbox failure is retried once, then the item is ``sandbox_error``."""
SHOWN_CHARS = 500
"""How much of an input, output or message a test's outcome shows."""


class SandboxFailed(Req2RankError):
    """The sandbox itself failed twice; nothing can be said about the code."""


def execute(sandbox: Sandbox, request: ExecRequest) -> ExecOutcome:
    """Run ``request``, retrying once when the sandbox itself fails; raises SandboxFailed."""
    error = "no attempt"
    for _ in range(ATTEMPTS):
        try:
            outcome = sandbox.run(request)
        except Exception as exc:  # noqa: BLE001 - a backend bug is the sandbox's fault, not the model's
            outcome = ExecOutcome(error=f"{type(exc).__name__}: {exc}")
        if outcome.error is None:
            return outcome
        error = outcome.error
    raise SandboxFailed(f"the sandbox failed twice: {error}")


def process_failure(outcome: ExecOutcome) -> tuple[TestStatus, str] | None:
    """The process's own failure (timeout, signal, non-zero exit), or None when it exited 0."""
    if outcome.timed_out:
        return "timeout", "killed at the wall timeout"
    if outcome.signal == signal.SIGXCPU:
        return "timeout", "CPU time limit exceeded"
    last = next((line.strip() for line in reversed(outcome.stderr.splitlines()) if line.strip()),
                "")[:SHOWN_CHARS]
    if outcome.signal is not None:
        try:
            name = signal.Signals(outcome.signal).name
        except ValueError:
            name = f"signal {outcome.signal}"
        return "runtime_error", f"killed by {name}" + (f": {last}" if last else "")
    if outcome.exit_code != 0:
        return "runtime_error", last or f"exited with code {outcome.exit_code}"
    return None
