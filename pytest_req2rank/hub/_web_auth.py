"""GitHub's OAuth web flow (authorization code) for the pages: the sign-in's ``state``, kept
by the hub and used once; where to send the browser; the code it comes back with exchanged
for GitHub's token."""

from __future__ import annotations

import re
import secrets
from datetime import timedelta
from typing import Any, cast
from urllib.parse import urlencode

import httpx
from sqlalchemy import CursorResult, select, update
from sqlalchemy.orm import Session

from ._accounts import token_digest
from ._config import HubConfig
from ._database import now
from ._errors import Refused
from ._tables import OAuthState

STATE_TTL_S = 600
"""How long a browser may take on GitHub's page before the sign-in has to start again."""

_PLAIN_PATH = re.compile(r"/(?![/\\])[\x21-\x7e]*")
"""A path of this hub: ``/`` not followed by ``/`` or a backslash, printable ASCII only (no
space, tab or other control character: a browser drops a tab, so ``/<TAB>/host`` would be
``//host``, another site)."""


def local_path(path: str | None) -> str:
    """Where to go after signing in: ``path`` when it is a plain absolute path of this hub
    (never another site, never a scheme-relative ``//host`` however spelled); else ``/``."""
    if not path or not _PLAIN_PATH.fullmatch(path) or "\\" in path:
        return "/"
    return path


def begin_sign_in(session: Session, next_path: str) -> str:
    """A new sign-in's random ``state``, kept (its SHA-256) with where to go after it."""
    state = secrets.token_urlsafe(24)
    moment = now()
    session.add(OAuthState(state_sha256=token_digest(state), next_path=local_path(next_path),
                           created_at=moment, expires_at=moment + timedelta(seconds=STATE_TTL_S)))
    session.commit()
    return state


def finish_sign_in(session: Session, state: str) -> str | None:
    """Use ``state`` up: where to go after the sign-in; ``None`` when the hub did not issue
    it, it expired, or it was used already (by this request or any other, at once)."""
    digest, moment = token_digest(state), now()
    done = session.execute(update(OAuthState).where(
        OAuthState.state_sha256 == digest, OAuthState.used_at.is_(None),
        OAuthState.expires_at > moment).values(used_at=moment)
        .execution_options(synchronize_session=False))
    session.commit()
    if cast(CursorResult[Any], done).rowcount != 1:
        return None
    return session.scalar(select(OAuthState.next_path).where(OAuthState.state_sha256 == digest))

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
