"""Scripted errors raised as the real litellm exception classes."""

from __future__ import annotations

from typing import Any

import httpx
from litellm import exceptions as errors

from ._script import FAKE_PROVIDER, ErrorName


def scripted_error(error: ErrorName, model: str, *, retry_after: float | None = None,
                   where: str = "") -> Exception:
    """The litellm exception a real provider failure of this kind would surface as."""
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
    if error == "auth":
        return errors.AuthenticationError(message, **common)
    if error == "not_found":
        return errors.NotFoundError(message, **common)
    if error == "context_window":
        return errors.ContextWindowExceededError(message, **common)
    if error == "content_policy":
        return errors.ContentPolicyViolationError(message, **common)
    return errors.BadRequestError(message, **common)
