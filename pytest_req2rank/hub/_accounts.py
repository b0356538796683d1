"""Users and their API tokens (kept as SHA-256 hashes; the text is shown once)."""

from __future__ import annotations

import hashlib
import secrets

import httpx
from sqlalchemy import select
from sqlalchemy.orm import Session

from ._database import now
from ._errors import Refused
from ._tables import Token, User

TOKEN_PREFIX = "r2r_"


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def user_named(session: Session, name: str, *, admin: bool = False) -> User:
    """User ``name``, created when new; ``admin`` makes them one."""
    user = session.scalar(select(User).where(User.name == name))
    if user is None:
        user = User(name=name, is_admin=admin, created_at=now())
        session.add(user)
        session.flush()
    elif admin:
        user.is_admin = True
    return user


def create_token(session: Session, name: str, *, admin: bool = False) -> str:
    """A new token for user ``name`` (created when new; ``admin`` makes them one); returns
    the token's text, which the hub does not keep."""
    user = user_named(session, name, admin=admin)
    token = TOKEN_PREFIX + secrets.token_hex(24)
    session.add(Token(user_id=user.id, token_sha256=token_digest(token), created_at=now()))
    session.commit()
    return token


def user_for_token(session: Session, token: str) -> User | None:
    """The user a token belongs to; ``None`` for an unknown or revoked token."""
    row = session.scalar(select(Token).where(Token.token_sha256 == token_digest(token),
                                             Token.revoked_at.is_(None)))
    return session.get(User, row.user_id) if row is not None else None


def github_user(access_token: str, api_url: str) -> str:
    """The GitHub login an OAuth token belongs to (asked of GitHub's API at ``api_url``)."""
    try:
        response = httpx.get(f"{api_url.rstrip('/')}/user", timeout=30.0, headers={
            "Authorization": f"Bearer {access_token}", "Accept": "application/vnd.github+json"})
    except httpx.HTTPError as exc:
        raise Refused(502, "github_unreachable",
                      f"could not ask GitHub who this is ({exc})") from None
    try:
        answer = response.json() if response.is_success else None
    except ValueError:
        answer = None
    login = answer.get("login") if isinstance(answer, dict) else None
    if not isinstance(login, str) or not login:
        raise Refused(401, "github_refused", "GitHub did not accept the sign-in token; "
                      "sign in again")
    return login
