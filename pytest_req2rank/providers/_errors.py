"""Reading provider exceptions: what kind of failure, any Retry-After hint, a safe one-line summary.

Exceptions are recognised by class name along their MRO and by HTTP status
together, so this module works on litellm's and openai's classes without
importing either, and on wrappers that only carry a status code.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Literal

FailureClass = Literal["rate_limit", "transient", "timeout", "fatal"]

TRANSIENT_STATUS = frozenset({500, 502, 503, 504, 529})
_TIMEOUT_NAMES = frozenset({"Timeout", "APITimeoutError", "TimeoutError", "TimeoutException"})
_RATE_LIMIT_NAMES = frozenset({"RateLimitError"})
_FATAL_NAMES = frozenset({
    "AuthenticationError", "PermissionDeniedError", "NotFoundError", "BadRequestError",
    "UnprocessableEntityError", "ContentPolicyViolationError", "ContextWindowExceededError",
    "UnsupportedParamsError", "BudgetExceededError", "RejectedRequestError",
})
_TRANSIENT_NAMES = frozenset({
    "InternalServerError", "ServiceUnavailableError", "BadGatewayError", "APIConnectionError",
    "ConnectionError", "ConnectError", "NetworkError",
})
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


def classify(exc: BaseException) -> FailureClass:
    """Sort a failed call into rate limit, transient server/connection fault, timeout, or fatal."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    status = status_code(exc)
    if names & _TIMEOUT_NAMES or status == 408:
        return "timeout"
    if names & _RATE_LIMIT_NAMES or status == 429:
        return "rate_limit"
    if names & _FATAL_NAMES or (status is not None and 400 <= status < 500):
        return "fatal"
    if names & _TRANSIENT_NAMES or status in TRANSIENT_STATUS:
        return "transient"
    return "fatal"


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
