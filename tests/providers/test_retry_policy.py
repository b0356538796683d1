"""The retry policy on its own: classification, Retry-After, messages, and the retry loop."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from pytest_req2rank.providers import ProviderError, RetryPolicy
from pytest_req2rank.providers._errors import classify, describe, redact, retry_after_s, status_code
from pytest_req2rank.providers._retry import Attempted, call_with_retries


class StatusError(Exception):
    """A wrapper exception that only carries an HTTP status, like many SDK errors."""

    def __init__(self, status: int, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"HTTP {status}")
        self.status_code = status
        self.headers = headers or {}


def litellm_error(name: str, message: str = "boom", **extra: Any) -> Exception:
    from pytest_req2rank.providers._env import import_litellm

    litellm = import_litellm()
    cls = getattr(litellm, name)
    if name == "PermissionDeniedError":
        extra.setdefault("response", httpx.Response(403, request=httpx.Request("POST", "http://127.0.0.1")))
    if name in {"Timeout", "NotFoundError", "BadRequestError", "ContextWindowExceededError",
                "ContentPolicyViolationError"}:
        return cls(message, model="m", llm_provider="p", **extra)  # type: ignore[no-any-return]
    return cls(message, llm_provider="p", model="m", **extra)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("RateLimitError", "rate_limit"),
        ("Timeout", "timeout"),
        ("InternalServerError", "transient"),
        ("ServiceUnavailableError", "transient"),
        ("BadGatewayError", "transient"),
        ("APIConnectionError", "transient"),
        ("AuthenticationError", "fatal"),
        ("PermissionDeniedError", "fatal"),
        ("NotFoundError", "fatal"),
        ("BadRequestError", "fatal"),
        ("ContextWindowExceededError", "fatal"),
        ("ContentPolicyViolationError", "fatal"),
    ],
)
def test_litellm_exception_classes(name: str, expected: str) -> None:
    assert classify(litellm_error(name)) == expected


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (StatusError(429), "rate_limit"),
        (StatusError(408), "timeout"),
        (StatusError(500), "transient"),
        (StatusError(502), "transient"),
        (StatusError(503), "transient"),
        (StatusError(401), "fatal"),
        (StatusError(400), "fatal"),
        (ConnectionResetError("reset"), "transient"),
        (TimeoutError("slow"), "timeout"),
        (ValueError("bug"), "fatal"),
    ],
)
def test_status_codes_and_builtin_classes(exc: Exception, expected: str) -> None:
    assert classify(exc) == expected


def test_status_code_is_read_from_the_exception_or_its_response() -> None:
    assert status_code(StatusError(503)) == 503
    assert status_code(litellm_error("RateLimitError")) == 429
    assert status_code(ValueError()) is None


def test_retry_after_hints() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after_s(StatusError(429, {"Retry-After": "7"})) == 7.0
    assert retry_after_s(StatusError(429, {"retry-after-ms": "1500", "retry-after": "9"})) == 1.5
    assert retry_after_s(StatusError(429, {"retry-after": "Wed, 01 Jan 2025 12:00:30 GMT"}),
                         now=now) == 30.0
    assert retry_after_s(StatusError(429, {"retry-after": "soon"})) is None
    assert retry_after_s(StatusError(429)) is None
    response = httpx.Response(429, headers={"retry-after": "4"})
    assert retry_after_s(litellm_error("RateLimitError", response=response)) == 4.0


def test_backoff_doubles_up_to_the_cap_and_hints_are_capped() -> None:
    policy = RetryPolicy()
    assert [policy.backoff_s(i) for i in range(5)] == [1.0, 2.0, 4.0, 8.0, 8.0]
    assert policy.delay_s(StatusError(429, {"retry-after": "3"}), 0) == 3.0
    assert policy.delay_s(StatusError(429, {"retry-after": "3600"}), 0) == 60.0
    assert policy.delay_s(StatusError(429, {"retry-after": "0"}), 2) == 4.0


def test_describe_is_one_safe_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_GATEWAY_TOKEN", "tok_live_abcdef123456")
    exc = ValueError("litellm.ValueError: ValueError: bad key sk-proj-abcdefghijklmnop "
                     "Authorization: Bearer xyz123 tok_live_abcdef123456\nTraceback: secret")
    text = describe(exc)
    assert text == "ValueError: bad key sk-*** Authorization: Bearer *** ***"
    assert describe(litellm_error("RateLimitError")) == "RateLimitError: boom"
    long = describe(ValueError("word " * 200))
    assert long.endswith("…") and len(long) == len("ValueError: ") + 300
    assert redact("api_key=abc123456789") == "api_key=***"


def scripted(*outcomes: Exception | str) -> tuple[Callable[[], Awaitable[str]], list[int]]:
    """A call that raises or returns each outcome in turn; the list counts calls."""
    calls: list[int] = []

    async def call() -> str:
        calls.append(1)
        outcome = outcomes[min(len(calls), len(outcomes)) - 1]
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    return call, calls


def run(call: Callable[[], Awaitable[str]], delays: list[float],
        policy: RetryPolicy | None = None) -> Attempted[str]:
    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    return asyncio.run(call_with_retries(call, policy=policy or RetryPolicy(), sleep=sleep))


def test_rate_limits_back_off_then_give_up() -> None:
    delays: list[float] = []
    call, calls = scripted(StatusError(429))
    with pytest.raises(ProviderError) as info:
        run(call, delays)
    assert delays == [1.0, 2.0, 4.0] and len(calls) == 4
    assert info.value.kind == "api_error" and info.value.attempts == 4
    assert info.value.message == "StatusError: HTTP 429 (gave up after 4 attempts)"


def test_a_longer_policy_reaches_the_cap() -> None:
    delays: list[float] = []
    call, _ = scripted(StatusError(503))
    with pytest.raises(ProviderError):
        run(call, delays, RetryPolicy(max_retries=5))
    assert delays == [1.0, 2.0, 4.0, 8.0, 8.0]


def test_mixed_failures_share_one_backoff_then_succeed() -> None:
    delays: list[float] = []
    call, calls = scripted(StatusError(429), StatusError(502), "done")
    result = run(call, delays)
    assert (result.value, result.attempts, result.delays_s) == ("done", 3, (1.0, 2.0))
    assert delays == [1.0, 2.0] and len(calls) == 3


def test_timeouts_retry_once_without_waiting() -> None:
    delays: list[float] = []
    call, _ = scripted(TimeoutError("slow"), "done")
    assert run(call, delays).attempts == 2 and delays == []
    call, calls = scripted(TimeoutError("slow"))
    with pytest.raises(ProviderError) as info:
        run(call, delays)
    assert info.value.kind == "timeout" and info.value.attempts == 2 and len(calls) == 2
    assert "timed out 2 times" in info.value.message and delays == []


def test_fatal_errors_are_not_retried() -> None:
    delays: list[float] = []
    call, calls = scripted(StatusError(401), "never")
    with pytest.raises(ProviderError) as info:
        run(call, delays)
    assert (info.value.kind, info.value.attempts, len(calls), delays) == ("api_error", 1, 1, [])


MISSING_KEY = ("OpenAIException - Missing credentials. Please pass an `api_key`, or set the "
               "`OPENAI_API_KEY` environment variable.")


@pytest.mark.parametrize(("make", "cause"), [
    # how LiteLLM reports a missing OpenAI key: a server error, in words
    (lambda: litellm_error("InternalServerError", MISSING_KEY), "credentials"),
    (lambda: StatusError(403), "permission"),
    (lambda: litellm_error("NotFoundError"), "not_found"),
    (lambda: litellm_error("ContextWindowExceededError"), "context_window"),
])
def test_permanent_failures_are_not_retried_and_say_why(make: Callable[[], Exception],
                                                        cause: str) -> None:
    delays: list[float] = []
    call, calls = scripted(make(), "never")
    with pytest.raises(ProviderError) as info:
        run(call, delays)
    assert (len(calls), delays, info.value.attempts, info.value.cause) == (1, [], 1, cause)
    assert info.value.permanent and info.value.kind == "api_error"


def test_an_unreachable_server_is_retried_as_a_transient_fault() -> None:
    delays: list[float] = []
    call, calls = scripted(ConnectionRefusedError(111, "Connect call failed"))
    with pytest.raises(ProviderError) as info:
        run(call, delays)
    assert (len(calls), delays, info.value.cause) == (4, [1.0, 2.0, 4.0], "unreachable")
    assert not info.value.permanent and info.value.message.endswith("(gave up after 4 attempts)")
    call, calls = scripted(ConnectionRefusedError(111, "Connect call failed"), "up now")
    assert run(call, delays).value == "up now"
