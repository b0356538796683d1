"""What every remote call of a process passes through: a cap on calls in flight, and one
shared pause per model after a rate limit.

One gate per process (the worker), shared by the target, the generator and every judge:
``--r2r-concurrency`` caps the calls in flight across all the items the worker has started,
and a 429 from a model pauses every call of that model, not only the one that got it.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class CallGate:
    """At most ``slots`` calls in flight; :meth:`pause` holds back a model's next attempts.

    Lives on the process's provider loop (:mod:`._loop`): its semaphore binds to that loop.
    """

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self._semaphore = asyncio.Semaphore(slots)
        self._resume_at: dict[str, float] = {}

    @asynccontextmanager
    async def slot(self, model: str) -> AsyncIterator[None]:
        """Hold one of the slots for a call of ``model``, once the model's pause is over."""
        await self.wait(model)
        async with self._semaphore:
            yield

    async def wait(self, model: str) -> None:
        """Return when ``model`` is not paused (a pause may grow while waiting)."""
        while (left := self._resume_at.get(model, 0.0) - time.monotonic()) > 0:
            await asyncio.sleep(left)

    def pause(self, model: str, seconds: float) -> None:
        """No new attempt of ``model`` starts in the next ``seconds`` (longer pauses win)."""
        until = time.monotonic() + seconds
        if until > self._resume_at.get(model, 0.0):
            self._resume_at[model] = until


_lock = threading.Lock()
_gates: dict[int, CallGate] = {}
_pid = os.getpid()


def call_gate(slots: int) -> CallGate:
    """The process's gate of ``slots`` (every provider of a run asks with ``--r2r-concurrency``,
    so a run has one; a forked child gets its own)."""
    global _pid
    with _lock:
        if _pid != os.getpid():
            _gates.clear()
            _pid = os.getpid()
        if slots not in _gates:
            _gates[slots] = CallGate(slots)
        return _gates[slots]
