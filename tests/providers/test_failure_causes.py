"""Why a call failed, read from class, status and message together (and so whether it is
retried: tests/providers/test_retry_policy.py); the adapter's message naming the model and
the URL; the breaker that stops calling a model that fails for good."""

from __future__ import annotations

import itertools
import socket
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from pytest_req2rank.providers import (
    CompletionRequest,
    LiteLLMProvider,
    ProviderError,
    reset_breakers,
    run_stop_reason,
)
from pytest_req2rank.providers._base import PERMANENT_CAUSES
from pytest_req2rank.providers._breaker import RUN_WIDE_FAILURES_TO_STOP
from pytest_req2rank.providers._env import import_litellm
from pytest_req2rank.providers._errors import (
    classify,
    connection_url,
    failure_cause,
    root_message,
)
from pytest_req2rank.providers.fake import read_fake_log

Install = Callable[[dict[str, Any]], Any]
Ask = Callable[..., CompletionRequest]
MakeProvider = Callable[..., LiteLLMProvider]
OPENAI_MISSING_KEY = ("litellm.InternalServerError: InternalServerError: OpenAIException - "
                      "Missing credentials. Please pass an `api_key`, `workload_identity`, "
                      "`admin_api_key`, or set the `OPENAI_API_KEY` or `OPENAI_ADMIN_KEY` "
                      "environment variable.")


class StatusError(Exception):
    """An SDK-style error that carries only a status, a message and headers."""

    def __init__(self, status: int, message: str = "", headers: dict[str, str] | None = None
                 ) -> None:
        super().__init__(message or f"HTTP {status}")
        self.status_code = status
        self.headers = headers or {}


def litellm_error(name: str, message: str = "boom", status: int | None = None) -> Exception:
    errors = import_litellm()
    extra: dict[str, Any] = {}
    if status is not None or name == "PermissionDeniedError":
        extra["response"] = httpx.Response(status or 403,
                                           request=httpx.Request("POST", "http://127.0.0.1"))
    return getattr(errors, name)(message, model="m", llm_provider="p", **extra)  # type: ignore[no-any-return]


def raised_from(outer: Exception, *inner: BaseException) -> Exception:
    """``outer`` as a client raises it: each of ``inner`` the cause of the one before."""
    chain = [outer, *inner]
    for wrapper, cause in itertools.pairwise(chain):
        wrapper.__cause__ = cause
    return outer


def refused(url: str = "http://127.0.0.1:9/v1/chat/completions") -> Exception:
    """What litellm raises for a refused connection: a server error, from openai's connection
    error, from httpx's, from the socket's."""
    return raised_from(
        litellm_error("InternalServerError", "OpenAIException - Connection error.", 500),
        httpx.ConnectError("Cannot connect to host 127.0.0.1:9",
                           request=httpx.Request("POST", url)),
        ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 9)"))


@pytest.mark.parametrize(("make", "cause"), [
    # the measured bug: a missing OpenAI key arrives as a server error
    (lambda: litellm_error("InternalServerError", OPENAI_MISSING_KEY, 500), "credentials"),
    (lambda: litellm_error("AuthenticationError", "Incorrect API key provided"), "credentials"),
    (lambda: litellm_error("AuthenticationError", "Missing Anthropic API Key"), "credentials"),
    (lambda: litellm_error("BadRequestError", "API key not valid. Please pass a valid API key.",
                           400), "credentials"),
    (lambda: StatusError(401), "credentials"),
    (lambda: litellm_error("PermissionDeniedError"), "permission"),
    # litellm labels some 403s a bad request: the status decides
    (lambda: litellm_error("BadRequestError", "Project does not have access", 403), "permission"),
    (lambda: litellm_error("NotFoundError", "The model `x` does not exist"), "not_found"),
    (lambda: litellm_error("BadRequestError", "model 'qwen' not found, try pulling it first",
                           400), "not_found"),
    (lambda: StatusError(404), "not_found"),
    (lambda: litellm_error("RateLimitError", "You exceeded your current quota, please check "
                           "your plan and billing details.", 429), "quota"),
    (lambda: StatusError(429, '{"error": {"code": "insufficient_quota"}}'), "quota"),
    (lambda: litellm_error("BadRequestError", "Your credit balance is too low to access the "
                           "Anthropic API.", 400), "quota"),
    (lambda: StatusError(402), "quota"),
    # a per-minute limit worded as a quota (Gemini) says when to retry: a rate limit
    (lambda: StatusError(429, "You exceeded your current quota, please check your plan and "
                         "billing details. Please retry in 52.05s."), "rate_limit"),
    (lambda: StatusError(429, "You exceeded your current quota", {"retry-after": "20"}),
     "rate_limit"),
    (lambda: litellm_error("RateLimitError", "Rate limit reached for requests", 429),
     "rate_limit"),
    (lambda: litellm_error("ContextWindowExceededError"), "context_window"),
    (lambda: litellm_error("BadRequestError", "This model's maximum context length is 8192 "
                           "tokens", 400), "context_window"),
    (lambda: litellm_error("ContentPolicyViolationError"), "content_policy"),
    (lambda: litellm_error("BadRequestError", "unsupported parameter", 400), "bad_request"),
    (lambda: litellm_error("Timeout"), "timeout"),
    (lambda: TimeoutError("slow"), "timeout"),
    (refused, "unreachable"),
    (lambda: raised_from(litellm_error("APIConnectionError", "Connection error."),
                         socket.gaierror(-2, "Name or service not known")), "unreachable"),
    # a connection lost mid-answer is no proof the server is absent
    (lambda: litellm_error("APIConnectionError", "Connection error."), "transient"),
    (lambda: ConnectionResetError("reset"), "transient"),
    (lambda: litellm_error("InternalServerError", "boom", 500), "transient"),
    (lambda: StatusError(503), "transient"),
    (lambda: ValueError("a bug"), "bad_request"),
])
def test_the_cause_of_a_failure(make: Callable[[], Exception], cause: str) -> None:
    exc = make()
    assert failure_cause(exc) == cause
    assert (classify(exc) == "fatal") == (cause in PERMANENT_CAUSES)


def test_a_refused_connection_names_the_url_tried_and_the_socket_error() -> None:
    exc = refused("http://127.0.0.1:9/v1/chat/completions")
    assert connection_url(exc) == "http://127.0.0.1:9/v1/chat/completions"
    assert root_message(exc) == "[Errno 111] Connect call failed ('127.0.0.1', 9)"
    # litellm's own wrappers carry placeholder URLs: never taken for the one tried
    assert connection_url(litellm_error("InternalServerError", "Connection error.", 500)) is None


def script(*responses: dict[str, Any]) -> dict[str, Any]:
    return {"models": {"coder": [{"responses": list(responses)}]}}


def test_the_adapter_names_the_model_and_the_url_of_a_refused_connection(
    fake_script: Install, make_provider: MakeProvider, ask: Ask, delays: list[float]
) -> None:
    fake_script(script({"error": "unreachable"}))
    with pytest.raises(ProviderError) as info:
        make_provider(api_base="http://127.0.0.1:9/v1").complete(ask())
    assert info.value.message == (
        "fake/coder: cannot connect to http://127.0.0.1:9/v1/chat/completions (APIConnectionError: "
        "Connection error.; [Errno 111] Connection refused) (gave up after 4 attempts)")
    assert info.value.cause == "unreachable" and delays == [1.0, 2.0, 4.0]


@pytest.mark.parametrize(("error", "cause"), [
    ("missing_key", "credentials"), ("auth", "credentials"), ("permission", "permission"),
    ("not_found", "not_found"), ("quota", "quota"),
])
def test_a_model_failing_for_good_is_called_three_times_then_not_at_all(
    fake_script: Install, make_provider: MakeProvider, ask: Ask, error: str, cause: str
) -> None:
    log = fake_script(script({"error": error}))
    provider = make_provider()
    failures = []
    for _ in range(RUN_WIDE_FAILURES_TO_STOP + 2):
        with pytest.raises(ProviderError) as info:
            provider.complete(ask())
        failures.append(info.value)
    assert len(read_fake_log(log)) == RUN_WIDE_FAILURES_TO_STOP == 3
    assert [f.attempts for f in failures] == [1, 1, 1, 0, 0]
    assert {f.cause for f in failures} == {cause}
    reason = run_stop_reason()
    assert reason is not None and reason.startswith("fake/coder failed 3 calls in a row (")
    assert failures[-1].message == f"fake/coder: not called, the run is stopping: {reason}"
    reset_breakers()
    assert run_stop_reason() is None


def test_a_success_or_a_failure_of_one_request_starts_the_count_again(
    fake_script: Install, make_provider: MakeProvider, ask: Ask
) -> None:
    fake_script(script({"error": "auth"}, {"error": "auth"}, {"text": "ok"},
                       {"error": "auth"}, {"error": "auth"}, {"error": "bad_request"},
                       {"error": "auth"}, {"error": "auth"}, {"text": "still here"}))
    provider = make_provider()
    outcomes = []
    for _ in range(9):
        try:
            outcomes.append(provider.complete(ask()).text)
        except ProviderError as exc:
            outcomes.append(exc.cause)
    assert outcomes == ["credentials", "credentials", "ok", "credentials", "credentials",
                        "bad_request", "credentials", "credentials", "still here"]
    assert run_stop_reason() is None
