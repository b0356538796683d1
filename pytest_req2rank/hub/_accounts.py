"""Users and their API tokens (kept as SHA-256 hashes; the text is shown once; each expires,
and a user has a few in force at most); GitHub accounts, known by their numeric id."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

import httpx
from sqlalchemy import ColumnElement, CursorResult, or_, select, update
from sqlalchemy.orm import Session

from ._config import HubConfig
from ._database import aware, now
from ._errors import Refused
from ._tables import Token, User

TOKEN_PREFIX = "r2r_"


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class GitHubAccount:
    """A GitHub account: its login (can be renamed, then taken by another account) and its
    numeric id (never changes, never reused)."""

    login: str
    id: int


def user_named(session: Session, name: str, *, admin: bool = False,
               github_id: int | None = None) -> User:
    """User ``name``, created when new; ``admin`` makes them one; ``github_id`` binds them to
    that GitHub account (refused when either is bound otherwise already)."""
    user = session.scalar(select(User).where(User.name == name))
    if github_id is not None:
        bound = session.scalar(select(User).where(User.github_id == github_id))
        if bound is not None and bound is not user:
            raise Refused(409, "github_id_taken", f"GitHub account {github_id} is user "
                          f"{bound.name} already")
        if user is not None and user.github_id not in (None, github_id):
            raise Refused(409, "github_id_taken", f"user {name} is GitHub account "
                          f"{user.github_id} already")
    if user is None:
        user = User(name=name, is_admin=admin, github_id=github_id, created_at=now())
        session.add(user)
        session.flush()
        return user
    if admin:
        user.is_admin = True
    if github_id is not None:
        user.github_id = github_id
    return user


def user_of_github(session: Session, account: GitHubAccount) -> User:
    """The hub's user of a GitHub account, found by the account's id. A user named as the
    login but bound to no account yet (made by ``token create``, or kept before ids were)
    is bound to it; one bound to another account, whose login this was, is renamed
    ``LOGIN~ID`` until that account signs in again, and keeps its submissions."""
    user = session.scalar(select(User).where(User.github_id == account.id))
    named = session.scalar(select(User).where(User.name == account.login))
    if named is not None and named is not user:
        if named.github_id is None:
            if user is None:
                named.github_id = account.id
                session.flush()
                return named
            return user  # an unbound user holds the new login: the account keeps its name
        named.name = f"{account.login}~{named.github_id}"
        session.flush()
    if user is None:
        user = User(name=account.login, github_id=account.id, created_at=now())
        session.add(user)
    else:
        user.name = account.login
    session.flush()
    return user


def create_token(session: Session, name: str, *, admin: bool = False,
                 github_id: int | None = None, config: HubConfig | None = None) -> str:
    """A new token for user ``name`` (created when new; ``admin``, ``github_id``: see
    :func:`user_named`); returns the token's text, which the hub does not keep."""
    return issue_token(session, user_named(session, name, admin=admin, github_id=github_id),
                       config or HubConfig())


def issue_token(session: Session, user: User, config: HubConfig) -> str:
    """A new token for ``user``, valid ``config.token_ttl_s``; beyond ``config.max_tokens``
    in force, the oldest are revoked."""
    moment = now()
    live = list(session.scalars(select(Token).where(Token.user_id == user.id, _in_force(
        moment, config)).order_by(Token.created_at, Token.id)))
    for old in live[: max(len(live) - config.max_tokens + 1, 0)]:
        old.revoked_at = moment
    token = TOKEN_PREFIX + secrets.token_hex(24)
    session.add(Token(user_id=user.id, token_sha256=token_digest(token), created_at=moment,
                      expires_at=moment + timedelta(seconds=config.token_ttl_s)))
    session.commit()
    return token


def _in_force(moment: datetime, config: HubConfig) -> ColumnElement[bool]:
    """Tokens neither revoked nor expired at ``moment`` (a SQL condition)."""
    oldest = moment - timedelta(seconds=config.token_ttl_s)
    return (Token.revoked_at.is_(None)
            & or_(Token.expires_at > moment, Token.expires_at.is_(None)
                  & (Token.created_at > oldest)))


def token_expiry(token: Token, config: HubConfig) -> datetime:
    return aware(token.expires_at) if token.expires_at is not None else \
        aware(token.created_at) + timedelta(seconds=config.token_ttl_s)


def user_for_token(session: Session, token: str, config: HubConfig | None = None) -> User:
    """The user a token belongs to; refused (401, saying why) for an unknown, revoked or
    expired one."""
    config = config or HubConfig()
    row = session.scalar(select(Token).where(Token.token_sha256 == token_digest(token)))
    if row is None or row.revoked_at is not None:
        raise Refused(401, "unauthenticated", "unknown or revoked token; sign in again "
                      "(`req2rank login URL`) or ask the hub's admin for a new one")
    expiry = token_expiry(row, config)
    if expiry <= now():
        raise Refused(401, "token_expired", f"this token expired at "
                      f"{expiry.isoformat(timespec='seconds')}; sign in again "
                      "(`req2rank login URL`) or ask the hub's admin for a new one")
    user = session.get(User, row.user_id)
    assert user is not None  # a foreign key
    return user


def revoke_tokens(session: Session, user: User, *, only: str | None = None) -> int:
    """Revoke ``user``'s tokens in force (``only``: the one with this text); how many."""
    query = update(Token).where(Token.user_id == user.id, Token.revoked_at.is_(None))
    if only is not None:
        query = query.where(Token.token_sha256 == token_digest(only))
    done = session.execute(query.values(revoked_at=now())
                           .execution_options(synchronize_session=False))
    session.commit()
    return int(cast(CursorResult[Any], done).rowcount or 0)


def github_account(access_token: str, config: HubConfig) -> GitHubAccount:
    """The GitHub account of an OAuth token issued to this hub's OAuth app, asked with
    GitHub's application token check (basic auth with the app's id and secret): a token of
    another app, revoked or made up is not found there, and refused."""
    try:
        response = httpx.post(
            f"{config.github_api_url.rstrip('/')}/applications/{config.github_client_id}/token",
            json={"access_token": access_token}, timeout=30.0,
            auth=(config.github_client_id, config.github_client_secret),
            headers={"Accept": "application/vnd.github+json"})
    except httpx.HTTPError as exc:
        raise Refused(502, "github_unreachable",
                      f"could not ask GitHub who this is ({type(exc).__name__})") from None
    if response.status_code in (404, 422):
        raise Refused(401, "github_refused", "GitHub does not know this token as one issued "
                      "to this hub's app (another app's, revoked or made up); sign in again")
    if response.status_code == 401:
        raise Refused(502, "github_app_refused", "GitHub refused this hub's OAuth app "
                      "credentials; the hub's admin must check R2R_HUB_GITHUB_CLIENT_ID and "
                      "R2R_HUB_GITHUB_CLIENT_SECRET")
    try:
        answer = response.json() if response.is_success else None
    except ValueError:
        answer = None
    app = answer.get("app") if isinstance(answer, dict) else None
    user = answer.get("user") if isinstance(answer, dict) else None
    login = user.get("login") if isinstance(user, dict) else None
    account_id = user.get("id") if isinstance(user, dict) else None
    if not isinstance(app, dict) or app.get("client_id") != config.github_client_id \
            or not isinstance(login, str) or not login \
            or not isinstance(account_id, int) or isinstance(account_id, bool):
        raise Refused(502, "github_unreadable", f"GitHub's token check answered HTTP "
                      f"{response.status_code} without this app's user; try again later")
    return GitHubAccount(login, account_id)
