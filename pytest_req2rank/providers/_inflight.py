"""The model calls in flight in this process, and stopping them: what a stopping run needs to
wind its threads down. Free of asyncio, so a run that never called a model does not load it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import CancelledError, Future
from contextlib import contextmanager
from typing import Any

_lock = threading.Lock()
_in_flight: set[Future[Any]] = set()
_refusing = 0


def track(future: Future[Any]) -> None:
    """Count ``future`` (a call on the provider loop) in flight until it is done."""
    with _lock:
        _in_flight.add(future)
    future.add_done_callback(_forget)


def _forget(future: Future[Any]) -> None:
    with _lock:
        _in_flight.discard(future)


def calls_in_flight() -> int:
    """How many calls of this process are in flight now."""
    with _lock:
        return len(_in_flight)


def check_not_refused() -> None:
    """Raise ``CancelledError`` while :func:`calls_refused` is in force."""
    with _lock:
        if _refusing:
            raise CancelledError("the run is stopping: no new model call")


@contextmanager
def calls_refused() -> Iterator[None]:
    """Cancel every call in flight (its waiter gets ``CancelledError``) and refuse every new
    one at once, until the block ends."""
    global _refusing
    with _lock:
        _refusing += 1
        pending = list(_in_flight)
    for future in pending:
        future.cancel()
    try:
        yield
    finally:
        with _lock:
            _refusing -= 1
