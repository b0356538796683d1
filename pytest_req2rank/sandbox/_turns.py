"""A sandbox shared by the threads of one process, at most so many executions at once."""

from __future__ import annotations

import threading

from ..models import IsolationLevel
from ._base import ExecOutcome, ExecRequest, Sandbox


class TakingTurns(Sandbox):
    """``inner`` with at most ``slots`` executions at a time; the others wait their turn.

    Items evaluated ahead of pytest (many per process) grade in the sandbox as the items of a
    serial run would: one execution per process at a time by default, so ``-n 2`` keeps two
    executions on two cores and the timeouts calibrated for that hold.
    """

    def __init__(self, inner: Sandbox, slots: int = 1) -> None:
        self.inner = inner
        self.name = inner.name
        self.warm_modules = inner.warm_modules
        self._turns = threading.BoundedSemaphore(slots)

    @property
    def isolation(self) -> str:
        return self.inner.isolation

    @property
    def isolation_level(self) -> IsolationLevel:
        return self.inner.isolation_level

    def run(self, request: ExecRequest) -> ExecOutcome:
        with self._turns:
            return self.inner.run(request)

    def prestart(self) -> None:
        self.inner.prestart()

    def close(self) -> None:
        self.inner.close()
