"""The retry policy: the only place a provider call is retried.

Rate limits (429), transient server or connection faults and an unreachable server back
off 1 s → 2 s → 4 s (doubling, capped at 8 s), at most 3 retries, or wait for the
server's Retry-After hint (capped). A rate limit pauses every call of that model in the
run for that wait (:class:`._gate.CallGate`), not only the call that got it. An API
timeout is retried once, at once; a second one is a ``timeout``. A failure no retry can
mend (refused credentials, unknown model, exhausted quota, a request the provider refuses:
:data:`._base.PERMANENT_CAUSES`) is not retried. Those, and exhausted retries, are an
``api_error``; each :class:`ProviderError` says its cause (:func:`._errors.failure_cause`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from ._base import FailureCause, ProviderError
from ._errors import describe, failure_cause, failure_class, retry_after_s

T = TypeVar("T")

HARD_TIMEOUT_GRACE_S = 10.0
"""Grace on top of a request's own timeout, for providers that ignore it."""
Sleep = Callable[[float], Awaitable[None]]
Explain = Callable[[BaseException, FailureCause], str]
"""The message of a failed call: the provider's own words, and what the caller knows (the
model, the URL it tried)."""


def _describe(exc: BaseException, cause: FailureCause) -> str:
    return describe(exc)


class SharedPause(Protocol):
    """Where a rate limit's wait is shared with the other calls of the model."""

    def pause(self, model: str, seconds: float) -> None: ...


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait; the defaults are the project's contract."""

    max_retries: int = 3
    base_delay_s: float = 1.0
    max_delay_s: float = 8.0
    max_retry_after_s: float = 60.0
    timeout_retries: int = 1

    def longest_call_s(self, timeout_s: float) -> float:
        """An upper bound on one call's wall time: every attempt runs to its hard timeout
        (``timeout_s`` plus the grace), every wait is the longest allowed."""
        attempts = 1 + self.max_retries + self.timeout_retries
        longest_wait = max(self.max_retry_after_s, self.max_delay_s)
        return attempts * (timeout_s + HARD_TIMEOUT_GRACE_S) + self.max_retries * longest_wait

    def backoff_s(self, retry: int) -> float:
        """The wait before retry number ``retry`` (0-based) without a server hint."""
        return float(min(self.base_delay_s * 2**retry, self.max_delay_s))

    def delay_s(self, exc: BaseException, retry: int) -> float:
        """The wait before retry ``retry`` after ``exc``: its Retry-After hint, else the backoff."""
        hint = retry_after_s(exc)
        if hint is not None and hint > 0:
            return min(hint, self.max_retry_after_s)
        return self.backoff_s(retry)


@dataclass(frozen=True)
class Attempted(Generic[T]):
    """A successful call's value, with how many attempts it took and the waits in between."""

    value: T
    attempts: int
    delays_s: tuple[float, ...]


async def call_with_retries(call: Callable[[], Awaitable[T]], *, policy: RetryPolicy,
                            sleep: Sleep, shared: tuple[SharedPause, str] | None = None,
                            explain: Explain = _describe) -> Attempted[T]:
    """Await ``call()`` until it succeeds or the policy gives up with :class:`ProviderError`.

    With ``shared = (gate, model)``, a rate limit's wait also pauses the model's other calls.
    ``explain`` words the error's message (default: the exception's class and first line).
    """
    attempts = retries = timeouts = 0
    delays: list[float] = []
    while True:
        attempts += 1
        try:
            value = await call()
        except Exception as exc:
            cause = failure_cause(exc)
            kind = failure_class(cause)
            if kind == "fatal":
                raise ProviderError("api_error", explain(exc, cause), attempts=attempts,
                                    cause=cause) from exc
            if kind == "timeout":
                timeouts += 1
                if timeouts > policy.timeout_retries:
                    raise ProviderError(
                        "timeout", f"{explain(exc, cause)} (timed out {timeouts} times)",
                        attempts=attempts, cause=cause) from exc
                continue
            if retries >= policy.max_retries:
                raise ProviderError(
                    "api_error", f"{explain(exc, cause)} (gave up after {attempts} attempts)",
                    attempts=attempts, cause=cause,
                ) from exc
            delay = policy.delay_s(exc, retries)
            if kind == "rate_limit" and shared is not None:
                gate, model = shared
                gate.pause(model, delay)
            delays.append(delay)
            retries += 1
            await sleep(delay)
        else:
            return Attempted(value, attempts, tuple(delays))
