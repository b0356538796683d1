"""One long-lived event loop per process, on a daemon thread, shared by every remote provider.

litellm keeps per-loop state (logging workers, HTTP clients); repeated
``asyncio.run`` calls leak it, so every call of this process runs here.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import threading
from collections.abc import Coroutine
from concurrent.futures import CancelledError, Future
from typing import Any, TypeVar

from ._inflight import check_not_refused, track

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None
_pid: int | None = None


def background_loop() -> asyncio.AbstractEventLoop:
    """The process's loop, started on first use (and again in a forked child)."""
    global _loop, _thread, _pid
    with _lock:
        if _loop is None or _pid != os.getpid() or _thread is None or not _thread.is_alive():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(
                target=_serve, args=(loop,), name="req2rank-provider-loop", daemon=True
            )
            thread.start()
            _loop, _thread, _pid = loop, thread, os.getpid()
        return _loop


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    asyncio.set_event_loop(loop)
    loop.run_forever()


def on_background_loop() -> bool:
    """True when the caller runs on the background loop's own thread."""
    return _thread is not None and threading.current_thread() is _thread


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the background loop and wait for it; safe from any other thread."""
    if on_background_loop():
        coro.close()
        raise RuntimeError("a blocking provider call from the provider loop would deadlock; "
                           "await acomplete() instead")
    return _submit(coro).result()


async def run_there(coro: Coroutine[Any, Any, T]) -> T:
    """Await ``coro`` on the background loop from any loop (directly when already there)."""
    if on_background_loop():
        return await coro
    return await asyncio.wrap_future(_submit(coro))


def _submit(coro: Coroutine[Any, Any, T]) -> Future[T]:
    try:
        check_not_refused()
    except CancelledError:
        coro.close()
        raise
    future = asyncio.run_coroutine_threadsafe(coro, background_loop())
    track(future)
    return future


@atexit.register
def _stop() -> None:
    with _lock:
        loop, thread = _loop, _thread
    if loop is not None and thread is not None and thread.is_alive() and _pid == os.getpid():
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=1.0)
