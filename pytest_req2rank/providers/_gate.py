"""What the remote calls of a run pass through: a cap on calls in flight, and one shared
pause per model after a rate limit.

A run builds one gate per process (:class:`~pytest_req2rank.run.Run`, from
``--r2r-concurrency``) and hands it to every provider it builds, the target, the generator
and every judge alike: the gate caps the calls in flight across all the items the process
has started, and a 429 from a model pauses every call of that model, not only the one that
got it. A provider built without a gate gets one of its own.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from ._base import ProviderConfigError

if TYPE_CHECKING:
    import asyncio


class CallGate:
    """At most ``slots`` calls in flight; :meth:`pause` holds back a model's next attempts.

    Used on the process's provider loop (:mod:`._loop`). Building one loads nothing: its
    semaphore is made by the first call through it, on that loop (a run that calls no
    model never loads asyncio).
    """

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ProviderConfigError(f"concurrency must be at least 1, got {slots}")
        self.slots = slots
        self._semaphore: asyncio.Semaphore | None = None
        self._resume_at: dict[str, float] = {}

    @asynccontextmanager
    async def slot(self, model: str) -> AsyncIterator[None]:
        """Hold one of the slots for a call of ``model``, once the model's pause is over."""
        import asyncio  # running on a loop: loaded already

        await self.wait(model)
        if self._semaphore is None:  # no await since the check: no other call ran in between
            self._semaphore = asyncio.Semaphore(self.slots)
        async with self._semaphore:
            yield

    async def wait(self, model: str) -> None:
        """Return when ``model`` is not paused (a pause may grow while waiting)."""
        import asyncio  # as slot()

        while (left := self._resume_at.get(model, 0.0) - time.monotonic()) > 0:
            await asyncio.sleep(left)

    def pause(self, model: str, seconds: float) -> None:
        """No new attempt of ``model`` starts in the next ``seconds`` (longer pauses win)."""
        until = time.monotonic() + seconds
        if until > self._resume_at.get(model, 0.0):
            self._resume_at[model] = until
