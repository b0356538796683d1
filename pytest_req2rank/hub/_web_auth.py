"""GitHub's OAuth web flow (authorization code) for the pages: where to send the browser, and
the code it comes back with exchanged for GitHub's token."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import httpx

from ._config import HubConfig
from ._errors import Refused

SCOPE = "read:user"
"""Enough to read who signed in (the command line's device flow asks the same)."""


def authorize_url(config: HubConfig, state: str, redirect_uri: str) -> str:
    """GitHub's page where the user allows the hub's app, coming back to ``redirect_uri``."""
    query = urlencode({"client_id": config.github_client_id, "redirect_uri": redirect_uri,
                       "state": state, "scope": SCOPE, "allow_signup": "false"})
    return f"{config.github_url.rstrip('/')}/login/oauth/authorize?{query}"


def exchange_code(config: HubConfig, code: str, redirect_uri: str) -> str:
    """GitHub's access token for the ``code`` its authorize page gave the browser."""
    try:
        response = httpx.post(
            f"{config.github_url.rstrip('/')}/login/oauth/access_token", timeout=30.0,
            headers={"Accept": "application/json"},
            data={"client_id": config.github_client_id,
                  "client_secret": config.github_client_secret, "code": code,
                  "redirect_uri": redirect_uri})
    except httpx.HTTPError as exc:
        raise Refused(502, "github_unreachable", f"could not reach GitHub to finish signing "
                      f"in ({type(exc).__name__}); try again in a minute") from None
    try:
        answer: Any = response.json()
    except ValueError:
        answer = None
    token = answer.get("access_token") if isinstance(answer, dict) else None
    if response.is_success and isinstance(token, str) and token:
        return token
    why = (answer.get("error_description") or answer.get("error")
           if isinstance(answer, dict) else None) or f"HTTP {response.status_code}"
    raise Refused(401, "github_refused", f"GitHub refused the sign-in ({' '.join(str(why).split())});"
                  " sign in again")
