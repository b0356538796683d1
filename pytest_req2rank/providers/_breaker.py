"""Stopping calls to a model that fails for good: a revoked key, an exhausted quota.

After :data:`RUN_WIDE_FAILURES_TO_STOP` calls of a model in a row have failed for a
run-wide cause (:data:`._base.RUN_WIDE_CAUSES`: every later call would fail the same way),
the model's breaker opens: its later calls in this process fail at once, without calling,
and :func:`run_stop_reason` tells the run to stop. Three, because one such failure may be a
provider's fluke (a key rotated a moment ago, a deployment being swapped) and two in a row
rarely are, while each one more costs a call and an item; calls already in flight (at most
``--r2r-concurrency``) still finish. Any success of the model in between starts the count
again. One set of breakers per process, keyed by model and endpoint.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

from ._base import ProviderError
from ._errors import CAUSE_TEXT

RUN_WIDE_FAILURES_TO_STOP = 3


@dataclass
class _Breaker:
    failures: int = 0
    tripped: str | None = None
    last: ProviderError | None = None


_lock = threading.Lock()
_breakers: dict[tuple[str, str | None], _Breaker] = {}
_tripped: list[str] = []
_pid = os.getpid()


def _state() -> dict[tuple[str, str | None], _Breaker]:
    global _pid
    if _pid != os.getpid():  # a forked child starts with closed breakers
        _breakers.clear()
        _tripped.clear()
        _pid = os.getpid()
    return _breakers


def check_breaker(model: str, api_base: str | None) -> None:
    """Raise the model's stopping :class:`ProviderError` (no call made) once its breaker is open."""
    with _lock:
        breaker = _state().get((model, api_base))
        if breaker is None or breaker.tripped is None or breaker.last is None:
            return
        reason, last = breaker.tripped, breaker.last
    raise ProviderError("api_error", f"{model}: not called, the run is stopping: {reason}",
                        attempts=0, cause=last.cause)


def record_success(model: str, api_base: str | None) -> None:
    """A call of the model succeeded: its count of run-wide failures starts again."""
    with _lock:
        breaker = _state().get((model, api_base))
        if breaker is not None and breaker.tripped is None:
            breaker.failures = 0


def record_failure(model: str, api_base: str | None, error: ProviderError) -> None:
    """A call of the model failed with ``error``; a run-wide cause counts towards opening its
    breaker, any other cause starts the count again (the model itself still works)."""
    with _lock:
        breaker = _state().setdefault((model, api_base), _Breaker())
        if breaker.tripped is not None:
            return
        breaker.failures = breaker.failures + 1 if error.run_wide else 0
        breaker.last = error
        if breaker.failures >= RUN_WIDE_FAILURES_TO_STOP:
            breaker.tripped = (f"{model} failed {breaker.failures} calls in a row "
                               f"({CAUSE_TEXT[error.cause]}); last: {error.message}")
            _tripped.append(breaker.tripped)


def run_stop_reason() -> str | None:
    """Why the run must stop (the first model whose breaker opened), or ``None``."""
    with _lock:
        _state()
        return _tripped[0] if _tripped else None


def reset_breakers() -> None:
    """Close every breaker of this process (a new run starts; tests between scenarios)."""
    with _lock:
        _breakers.clear()
        _tripped.clear()
