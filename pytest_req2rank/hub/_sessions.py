"""Sign-ins on the pages: a random cookie (the hub keeps its SHA-256 only) and a CSRF token
per session, which every form that changes something sends back."""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from ._accounts import token_digest
from ._database import aware, now
from ._errors import Refused
from ._tables import User, WebSession

COOKIE = "r2r_session"


@dataclass(frozen=True)
class Visitor:
    """Who is signed in on the pages, and their session's CSRF token."""

    user: User
    csrf_token: str
    session_id: int


def start_session(session: Session, user: User, ttl_s: int) -> str:
    """A new sign-in of ``user`` for ``ttl_s`` seconds; returns the cookie's value, which the
    hub does not keep."""
    cookie = secrets.token_urlsafe(32)
    moment = now()
    session.add(WebSession(user_id=user.id, cookie_sha256=token_digest(cookie),
                           csrf_token=secrets.token_urlsafe(32), created_at=moment,
                           expires_at=moment + timedelta(seconds=ttl_s)))
    session.commit()
    return cookie


def visitor_for_cookie(session: Session, cookie: str | None) -> Visitor | None:
    """The signed-in visitor of a session cookie; ``None`` for none, an unknown, ended or
    expired one."""
    if not cookie:
        return None
    found = session.scalar(select(WebSession).where(
        WebSession.cookie_sha256 == token_digest(cookie), WebSession.ended_at.is_(None)))
    if found is None or aware(found.expires_at) <= now():
        return None
    user = session.get(User, found.user_id)
    return Visitor(user, found.csrf_token, found.id) if user is not None else None


def end_session(session: Session, visitor: Visitor) -> None:
    """Sign out: the session's cookie stops working."""
    found = session.get(WebSession, visitor.session_id)
    if found is not None and found.ended_at is None:
        found.ended_at = now()
        session.commit()


def check_csrf(visitor: Visitor, sent: str | None) -> None:
    """Refuses a form whose CSRF token is not the session's (a form sent from another site)."""
    if not sent or not hmac.compare_digest(sent.encode(), visitor.csrf_token.encode()):
        raise Refused(403, "csrf", "this form expired or came from another site; reload the "
                      "page and send it again")
