"""Reading provider exceptions: why a call failed, any Retry-After hint, a safe one-line summary.

Exceptions are recognised by class name along their MRO, by HTTP status and by message,
together, so this module works on litellm's and openai's classes without importing either,
and on wrappers that only carry a status code. The message matters because providers and
LiteLLM label some failures by the wrong class: a missing OpenAI key is an
``InternalServerError`` saying "Missing credentials", an exhausted quota a 429 like a rate
limit, a refused connection an ``InternalServerError`` whose cause is the socket's error.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Literal

from ._base import PERMANENT_CAUSES, FailureCause

FailureClass = Literal["rate_limit", "transient", "timeout", "fatal"]
"""What the retry policy does with a failure: back off (rate limit, transient), retry at
once (timeout), or give up (fatal: a permanent cause)."""

TRANSIENT_STATUS = frozenset({500, 502, 503, 504, 529})
_TIMEOUT_NAMES = frozenset({"Timeout", "APITimeoutError", "TimeoutError", "TimeoutException"})
_RATE_LIMIT_NAMES = frozenset({"RateLimitError"})
_NAMED_CAUSES: tuple[tuple[frozenset[str], FailureCause], ...] = (
    (frozenset({"AuthenticationError"}), "credentials"),
    (frozenset({"PermissionDeniedError"}), "permission"),
    (frozenset({"NotFoundError"}), "not_found"),
    (frozenset({"BudgetExceededError"}), "quota"),
    (frozenset({"ContextWindowExceededError"}), "context_window"),
    (frozenset({"ContentPolicyViolationError"}), "content_policy"),
)
_BAD_REQUEST_NAMES = frozenset({
    "BadRequestError", "UnprocessableEntityError", "UnsupportedParamsError",
    "RejectedRequestError",
})
_TRANSIENT_NAMES = frozenset({
    "InternalServerError", "ServiceUnavailableError", "BadGatewayError", "APIConnectionError",
    "ConnectionError", "ConnectError", "NetworkError",
})
_UNREACHABLE_NAMES = frozenset({
    "ConnectionRefusedError", "gaierror", "ClientConnectorError", "ClientConnectorDNSError",
    "ConnectError",
})
"""Failures to open a connection at all (refused, no such host): the server is not there."""
_CREDENTIALS_TEXT = re.compile(
    r"missing credentials|missing [\w ]*api[ _-]?key|no api[ _-]?key|api[ _]key client option"
    r"|incorrect api[ _-]?key|invalid[ _-]api[ _-]?key|invalid x-api-key|api key not valid"
    r"|api[ _-]?key (?:is )?(?:missing|invalid|not (?:set|found|valid))", re.IGNORECASE)
_QUOTA_CODE_TEXT = re.compile(r"insufficient_quota|credit balance|billing_hard_limit",
                              re.IGNORECASE)
_QUOTA_TEXT = re.compile(r"exceeded your current quota|quota (?:exceeded|exhausted)|billing",
                         re.IGNORECASE)
_RETRY_HINT_TEXT = re.compile(r"retry (?:in|after) \d|retrydelay|per minute|perminute",
                              re.IGNORECASE)
_NOT_FOUND_TEXT = re.compile(r"model_not_found|model [\w`'\"./:-]+ (?:does not exist|not found)",
                             re.IGNORECASE)
_CONTEXT_TEXT = re.compile(r"context_length_exceeded|maximum context length|context window",
                           re.IGNORECASE)
_CONTENT_POLICY_TEXT = re.compile(r"content_policy_violation|content management policy",
                                  re.IGNORECASE)
_UNREACHABLE_TEXT = re.compile(
    r"connection refused|connect call failed|cannot connect to host|name or service not known"
    r"|nodename nor servname|temporary failure in name resolution|getaddrinfo failed"
    r"|no route to host|network is unreachable", re.IGNORECASE)
_SECRET_PATTERNS = (
    (re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_\-]{8,}"), r"\1-***"),
    (re.compile(r"(?i)\b(bearer\s+)[^\s\"',;]+"), r"\1***"),
    (re.compile(r"(?i)\b((?:api[_-]?key|token|secret|password)[\"']?\s*[:=]\s*[\"']?)[^\s\"',;]+"),
     r"\1***"),
    (re.compile(r"\b[A-Za-z0-9_\-]{40,}\b"), "***"),
)
_SECRET_ENV = re.compile(r"(?i)(KEY|TOKEN|SECRET|PASSWORD)")
MAX_MESSAGE_CHARS = 300


def status_code(exc: BaseException) -> int | None:
    """The HTTP status an exception carries, directly or on its response, if any."""
    for candidate in (getattr(exc, "status_code", None),
                      getattr(getattr(exc, "response", None), "status_code", None)):
        if isinstance(candidate, int) and not isinstance(candidate, bool):
            return candidate
    return None


def chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the exceptions it was raised from or during, outermost first."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def failure_cause(exc: BaseException) -> FailureCause:
    """Why a call failed: its class names along the MRO, its HTTP status and its message
    (and those of the exceptions it wraps), read together; anything unrecognised is a
    ``bad_request`` (not retried: retrying an unknown fault rarely mends it)."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    wrapped = {type(inner).__name__ for inner in chain(exc)}
    status = status_code(exc)
    text = " | ".join(str(inner) for inner in chain(exc))
    if _CREDENTIALS_TEXT.search(text) or status == 401:
        return "credentials"
    if status == 403:
        return "permission"
    limited = bool(names & _RATE_LIMIT_NAMES) or status in (402, 429)
    if status == 402 or _QUOTA_CODE_TEXT.search(text) or (
            limited and _QUOTA_TEXT.search(text) and not _retry_hinted(exc, text)):
        return "quota"
    for known, cause in _NAMED_CAUSES:
        if names & known:
            return cause
    if status == 404 or _NOT_FOUND_TEXT.search(text):
        return "not_found"
    if _CONTEXT_TEXT.search(text):
        return "context_window"
    if _CONTENT_POLICY_TEXT.search(text):
        return "content_policy"
    if names & _TIMEOUT_NAMES or status == 408:
        return "timeout"
    if limited:
        return "rate_limit"
    if wrapped & _UNREACHABLE_NAMES or _UNREACHABLE_TEXT.search(text):
        return "unreachable"
    if names & _BAD_REQUEST_NAMES or (status is not None and 400 <= status < 500):
        return "bad_request"
    if names & _TRANSIENT_NAMES or status in TRANSIENT_STATUS or (
            status is not None and status >= 500):
        return "transient"
    return "bad_request"


def _retry_hinted(exc: BaseException, text: str) -> bool:
    """A quota message that says when to retry is a per-minute rate limit, not an empty
    account (Gemini words both "You exceeded your current quota")."""
    return retry_after_s(exc) is not None or bool(_RETRY_HINT_TEXT.search(text))


def classify(exc: BaseException) -> FailureClass:
    """What the retry policy does with ``exc``: see :data:`FailureClass`."""
    return failure_class(failure_cause(exc))


def failure_class(cause: FailureCause) -> FailureClass:
    """The retry policy's treatment of a cause; an unreachable server is retried as a
    transient fault (it may be starting)."""
    if cause in PERMANENT_CAUSES:
        return "fatal"
    if cause in ("timeout", "rate_limit"):
        return cause
    return "transient"


def connection_url(exc: BaseException) -> str | None:
    """The URL a failed connection tried, read from the HTTP client's own exception in the
    chain (httpx, openai); litellm's wrappers carry placeholder URLs, so they are skipped."""
    for inner in reversed(list(chain(exc))):
        if type(inner).__module__.split(".")[0] not in ("httpx", "openai"):
            continue
        try:
            url = inner.request.url  # type: ignore[attr-defined]
        except (AttributeError, RuntimeError):
            continue
        if url:
            return str(url)
    return None


def root_message(exc: BaseException) -> str:
    """The innermost wrapped exception's first line (``[Errno 111] Connect call failed``),
    which says more than a wrapper's "Connection error."; secrets masked."""
    innermost = list(chain(exc))[-1]
    text = str(innermost) or type(innermost).__name__
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return redact(first)[:MAX_MESSAGE_CHARS]


def retry_after_s(exc: BaseException, *, now: datetime | None = None) -> float | None:
    """The server's Retry-After hint in seconds (``retry-after-ms`` or ``retry-after``), if any."""
    for headers in _header_sources(exc):
        millis = _header(headers, "retry-after-ms")
        if millis is not None:
            try:
                return max(float(millis) / 1000.0, 0.0)
            except ValueError:
                pass
        value = _header(headers, "retry-after")
        if value is None:
            continue
        try:
            return max(float(value), 0.0)
        except ValueError:
            pass
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            continue
        current = now or datetime.now(UTC)
        return max((when - current).total_seconds(), 0.0)
    return None


def _header_sources(exc: BaseException) -> list[Any]:
    sources = [getattr(exc, "headers", None),
               getattr(getattr(exc, "response", None), "headers", None),
               getattr(exc, "litellm_response_headers", None)]
    return [s for s in sources if s is not None and hasattr(s, "items")]


def _header(headers: Mapping[str, Any], name: str) -> str | None:
    for key, value in headers.items():
        if str(key).lower() == name:
            return str(value).strip()
    return None


def describe(exc: BaseException) -> str:
    """``ClassName: first line of the message``, with anything key-like masked."""
    name = type(exc).__name__
    text = str(exc) or str(getattr(exc, "message", ""))
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    # litellm prefixes "litellm.<Class>: " and often repeats the class name once more.
    for _ in range(2):
        first = re.sub(rf"^(?:litellm\.)?{re.escape(name)}:\s*", "", first)
    first = redact(first)
    if len(first) > MAX_MESSAGE_CHARS:
        first = first[: MAX_MESSAGE_CHARS - 1] + "…"
    return f"{name}: {first}" if first else name


def redact(text: str) -> str:
    """Mask API keys, bearer tokens and the values of secret-looking environment variables."""
    for name, value in os.environ.items():
        if len(value) >= 8 and _SECRET_ENV.search(name) and value in text:
            text = text.replace(value, "***")
    for pattern, replacement in _SECRET_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


CAUSE_TEXT: dict[FailureCause, str] = {
    "credentials": "missing or refused credentials",
    "permission": "access denied",
    "not_found": "unknown model",
    "quota": "quota exhausted",
    "unreachable": "server unreachable",
    "bad_request": "request refused",
    "context_window": "context window exceeded",
    "content_policy": "content policy",
    "rate_limit": "rate limited",
    "transient": "provider error",
    "timeout": "timed out",
}
"""Each cause in a few words, for one-line messages."""
