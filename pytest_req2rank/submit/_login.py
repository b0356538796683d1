"""Signing in to a hub with GitHub's device flow: a code to enter on GitHub, then a hub token."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from ..errors import Req2RankError
from ._tokens import store_token

GITHUB_DEVICE_CODE_URL = "https://github.com/login/device/code"
GITHUB_TOKEN_URL = "https://github.com/login/oauth/access_token"
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
SLOW_DOWN_STEP_S = 5


class LoginError(Req2RankError):
    """Signing in did not work; the message says what to do."""


def login(hub_url: str, *, client_id: str | None = None,
          device_code_url: str = GITHUB_DEVICE_CODE_URL, token_url: str = GITHUB_TOKEN_URL,
          scope: str = "read:user", show: Callable[[str], None] = print,
          sleep: Callable[[float], None] = time.sleep, config_directory: Path | None = None,
          transport: httpx.BaseTransport | None = None) -> str:
    """Sign in to the hub at ``hub_url``: show a code and the GitHub page to enter it on,
    poll GitHub until it is entered, exchange GitHub's token for a hub token, and keep that
    in the user's config directory (mode 0600). Returns the hub token.

    ``client_id``: the hub's GitHub OAuth app (default: the one the hub names);
    ``device_code_url``/``token_url``: GitHub's endpoints (a stand-in in tests)."""
    hub_url = hub_url.rstrip("/")
    with httpx.Client(timeout=30.0, transport=transport,
                      headers={"Accept": "application/json"}) as http:
        if client_id is None:
            client_id = _hub_client_id(http, hub_url)
        device = _json(http, device_code_url, {"client_id": client_id, "scope": scope},
                       "ask GitHub for a sign-in code")
        for field in ("device_code", "user_code", "verification_uri"):
            if not isinstance(device.get(field), str):
                raise LoginError(f"GitHub's answer to {device_code_url} has no {field}: {device}")
        show(f"Open {device['verification_uri']} and enter the code {device['user_code']}")
        interval = float(device.get("interval") or 5)
        deadline = time.monotonic() + float(device.get("expires_in") or 900)
        while True:
            sleep(interval)
            answer = _json(http, token_url, {"client_id": client_id, "grant_type": DEVICE_GRANT,
                                             "device_code": device["device_code"]},
                           "poll GitHub for the sign-in")
            if isinstance(answer.get("access_token"), str):
                github_token = answer["access_token"]
                break
            error = answer.get("error")
            if error == "authorization_pending":
                pass
            elif error == "slow_down":
                interval = float(answer.get("interval") or interval + SLOW_DOWN_STEP_S)
            elif error == "expired_token":
                raise LoginError("the sign-in code expired before it was entered; "
                                 "run the login again")
            elif error == "access_denied":
                raise LoginError("the sign-in was denied on GitHub; run the login again "
                                 "and authorize the app")
            else:
                raise LoginError(f"GitHub refused the sign-in ({error}: "
                                 f"{answer.get('error_description', '')})")
            if time.monotonic() > deadline:
                raise LoginError("the sign-in code expired before it was entered; "
                                 "run the login again")
        issued = _json(http, f"{hub_url}/api/tokens/github", None, "get a token from the hub",
                       body={"access_token": github_token})
    token = issued.get("token")
    if not isinstance(token, str):
        raise LoginError(f"the hub {hub_url} gave no token: {issued}")
    path = store_token(hub_url, token, config_directory)
    show(f"Signed in to {hub_url} as {issued.get('user')}; token kept in {path}")
    return token


def _hub_client_id(http: httpx.Client, hub_url: str) -> str:
    try:
        response = http.get(f"{hub_url}/api/auth/github")
        data = response.json()
    except (httpx.HTTPError, ValueError) as exc:
        raise LoginError(f"could not ask the hub {hub_url} how to sign in ({exc})") from None
    client_id = data.get("client_id") if isinstance(data, dict) else None
    if not isinstance(client_id, str) or not client_id:
        raise LoginError(f"the hub {hub_url} has no GitHub sign-in configured; ask its admin "
                         "for a token (`req2rank-hub token create USER`)")
    return client_id


def _json(http: httpx.Client, url: str, form: dict[str, str] | None, what: str,
          body: dict[str, Any] | None = None) -> dict[str, Any]:
    try:
        response = http.post(url, data=form, json=body)
    except httpx.HTTPError as exc:
        raise LoginError(f"could not {what} at {url} ({type(exc).__name__}: {exc})") from None
    try:
        data = response.json()
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise LoginError(f"could not {what}: {url} answered {response.status_code} "
                         f"{response.text[:200]!r}")
    if response.status_code >= 400 and "error" not in data:
        raise LoginError(f"could not {what}: {url} answered {response.status_code}: {data}")
    if isinstance(data.get("error"), dict):  # the hub's own refusals
        raise LoginError(f"could not {what}: {data['error'].get('message')}")
    return data
