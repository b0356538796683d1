"""A sandbox shared by the threads of one process, at most so many executions at once."""

from __future__ import annotations

import threading

from ._base import ExecOutcome, ExecRequest, Sandbox
from ._wrapper import SandboxWrapper


class TakingTurns(SandboxWrapper):
    """``inner`` with at most ``slots`` executions at a time; the others wait their turn.

    Items evaluated ahead of pytest (many per process) grade in the sandbox as the items of a
    serial run would: one execution per process at a time by default, so ``-n 2`` keeps two
    executions on two cores and the timeouts calibrated for that hold.
    """

    def __init__(self, inner: Sandbox, slots: int = 1) -> None:
        super().__init__(inner)
        self._turns = threading.BoundedSemaphore(slots)

    def run(self, request: ExecRequest) -> ExecOutcome:
        with self._turns:
            return self.inner.run(request)
