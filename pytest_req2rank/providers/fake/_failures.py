"""Scripted errors raised as the real litellm exception classes."""

from __future__ import annotations

from typing import Any

import httpx
from litellm import exceptions as errors

from ._script import FAKE_PROVIDER, ErrorName

MISSING_KEY = ("Missing credentials. Please pass an `api_key`, or set the `OPENAI_API_KEY` "
               "environment variable.")
QUOTA = "You exceeded your current quota, please check your plan and billing details."


def scripted_error(error: ErrorName, model: str, *, retry_after: float | None = None,
                   where: str = "", api_base: str | None = None) -> Exception:
    """The litellm exception a real provider failure of this kind would surface as (the
    class, status and words LiteLLM gives for OpenAI: a missing key is an
    ``InternalServerError`` saying "Missing credentials", an exhausted quota a 429, a
    refused connection an ``APIConnectionError`` raised from httpx's ``ConnectError``)."""
    message = f"scripted {error.replace('_', ' ')} for fake/{model}{where}"
    headers = {"retry-after": f"{retry_after:g}"} if retry_after is not None else {}
    common: dict[str, Any] = {"model": model, "llm_provider": FAKE_PROVIDER}
    if error == "rate_limit":
        return errors.RateLimitError(message, response=httpx.Response(429, headers=headers), **common)
    if error == "timeout":
        return errors.Timeout(message, **common)
    if error == "server_error":
        return errors.InternalServerError(message, response=httpx.Response(500, headers=headers),
                                          **common)
    if error == "service_unavailable":
        return errors.ServiceUnavailableError(
            message, response=httpx.Response(503, headers=headers), **common
        )
    if error == "connection":
        return errors.APIConnectionError(message, **common)
    if error == "missing_key":
        return errors.InternalServerError(f"{message}: {MISSING_KEY}",
                                          response=httpx.Response(500), **common)
    if error == "quota":
        return errors.RateLimitError(f"{message}: {QUOTA}",
                                     response=httpx.Response(429, headers=headers), **common)
    if error == "permission":
        return errors.PermissionDeniedError(
            message, response=httpx.Response(403, request=httpx.Request("POST", _url(api_base))),
            **common)
    if error == "unreachable":
        refused = httpx.ConnectError("[Errno 111] Connection refused",
                                     request=httpx.Request("POST", _url(api_base)))
        failure = errors.APIConnectionError("Connection error.", **common)
        failure.__cause__ = refused
        return failure
    if error == "auth":
        return errors.AuthenticationError(message, **common)
    if error == "not_found":
        return errors.NotFoundError(message, **common)
    if error == "context_window":
        return errors.ContextWindowExceededError(message, **common)
    if error == "content_policy":
        return errors.ContentPolicyViolationError(message, **common)
    return errors.BadRequestError(message, **common)


def _url(api_base: str | None) -> str:
    """The URL a fake call pretends to have tried: its ``api_base``'s chat endpoint."""
    return f"{(api_base or 'http://fake.invalid/v1').rstrip('/')}/chat/completions"
