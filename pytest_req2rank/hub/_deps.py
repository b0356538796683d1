"""What the routes depend on: a database session, the signed-in user (a token on the API,
a session cookie on the pages)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Header, Path, Request
from sqlalchemy.orm import Session

from ._accounts import user_for_token
from ._errors import Refused
from ._sessions import COOKIE, Visitor, visitor_for_cookie
from ._tables import User


def database(request: Request) -> Iterator[Session]:
    with request.app.state.sessions() as session:
        yield session


Db = Annotated[Session, Depends(database)]


def bearer_token(authorization: Annotated[str | None, Header()] = None) -> str:
    """The API token the request carries (``Authorization: Bearer TOKEN``)."""
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Refused(401, "unauthenticated", "sign in: send 'Authorization: Bearer TOKEN' "
                      "(a token from `req2rank-hub token create USER` or `req2rank login`)")
    return token.strip()


Bearer = Annotated[str, Depends(bearer_token)]


def signed_in(request: Request, session: Db, token: Bearer) -> User:
    """The user of the request's token (refused when it is unknown, revoked or expired)."""
    return user_for_token(session, token, request.app.state.config)


Me = Annotated[User, Depends(signed_in)]


def page_visitor(request: Request, session: Db) -> Visitor | None:
    """Who is signed in on the pages (their session cookie), if anyone."""
    return visitor_for_cookie(session, request.cookies.get(COOKIE))


Viewer = Annotated[Visitor | None, Depends(page_visitor)]


RowId = Annotated[int, Path(ge=1, le=2**62, description="A row's id")]
"""A submission's or report's id in a path (bounded: databases store 64-bit integers)."""
