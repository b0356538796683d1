"""Signing in and out on the pages: ``/signin``, GitHub's web flow (``/auth/github`` and its
callback) and ``/signout``."""

from __future__ import annotations

import hmac

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from starlette.responses import Response

from ._accounts import github_account, user_of_github
from ._config import HubConfig
from ._deps import Db, Viewer
from ._errors import Refused
from ._forms import Form
from ._sessions import COOKIE, Visitor, check_csrf, end_session, start_session
from ._templates import render
from ._web_auth import (
    STATE_TTL_S,
    authorize_url,
    begin_sign_in,
    exchange_code,
    finish_sign_in,
    local_path,
)

STATE_COOKIE = "r2r_oauth_state"

signin_pages = APIRouter(include_in_schema=False)


def _config(request: Request) -> HubConfig:
    return request.app.state.config  # type: ignore[no-any-return]


def _base(request: Request) -> str:
    return (_config(request).public_url or str(request.base_url)).rstrip("/")


def _signin_page(request: Request, visitor: Visitor | None, *, error: str = "", status_code: int = 200,
                 next_path: str = "/") -> Response:
    config = _config(request)
    response = render(request, "signin.html", {
        "error": error, "next": next_path, "web_sign_in": config.web_sign_in,
        "device_sign_in": bool(config.github_client_id)}, visitor, status_code=status_code)
    if error and request.cookies.get(STATE_COOKIE):  # a failed sign-in starts again afresh
        response.delete_cookie(STATE_COOKIE, path="/auth/github")
    return response


@signin_pages.get("/signin", response_class=HTMLResponse)
def signin(request: Request, visitor: Viewer, next: str | None = None) -> Response:
    return _signin_page(request, visitor, next_path=local_path(next))


@signin_pages.get("/auth/github")
def github_start(request: Request, session: Db, visitor: Viewer, next: str | None = None
                 ) -> Response:
    """Send the browser to GitHub with a random state, kept by the hub (used once) and in a
    cookie of this browser (a sign-in finishes in the browser that started it)."""
    config = _config(request)
    if not config.web_sign_in:
        return _signin_page(request, visitor, status_code=404,
                            error="this hub has no GitHub sign-in for its pages")
    state = begin_sign_in(session, local_path(next))
    response = RedirectResponse(
        authorize_url(config, state, f"{_base(request)}/auth/github/callback"), status_code=303)
    response.set_cookie(STATE_COOKIE, state, max_age=STATE_TTL_S, path="/auth/github",
                        httponly=True,
                        samesite="lax", secure=_base(request).startswith("https://"))
    return response


@signin_pages.get("/auth/github/callback", response_class=HTMLResponse)
def github_callback(request: Request, session: Db, visitor: Viewer, code: str | None = None,
                    state: str | None = None, error: str | None = None,
                    error_description: str | None = None) -> Response:
    """GitHub sends the browser back here: the state checked against this browser's and
    used up (a second use of it is refused), the code exchanged, the GitHub account signed
    in (its user created on first sign-in)."""
    config = _config(request)
    if not config.web_sign_in:
        return _signin_page(request, visitor, status_code=404,
                            error="this hub has no GitHub sign-in for its pages")
    kept_state = request.cookies.get(STATE_COOKIE) or ""
    if not state or not kept_state or not hmac.compare_digest(state.encode(), kept_state.encode()):
        return _signin_page(request, visitor, status_code=400,
                            error="this sign-in was not started in this browser, or it "
                            "expired (the state does not match); sign in again")
    next_path = finish_sign_in(session, state)
    if next_path is None:
        return _signin_page(request, visitor, status_code=400,
                            error="this sign-in was finished already or it expired (a state "
                            "is used once); sign in again")
    if error:
        why = " ".join((error_description or error).split())[:200]
        return _signin_page(request, visitor, status_code=401, next_path=next_path,
                            error=f"GitHub did not sign you in ({why}); sign in again")
    if not code:
        return _signin_page(request, visitor, status_code=400, next_path=next_path,
                            error="GitHub sent no code back; sign in again")
    try:
        access_token = exchange_code(config, code, f"{_base(request)}/auth/github/callback")
        account = github_account(access_token, config)
    except Refused as exc:
        return _signin_page(request, visitor, status_code=exc.status, next_path=next_path,
                            error=exc.message)
    if visitor is not None:  # signing in again: the earlier session ends
        end_session(session, visitor)
    user = user_of_github(session, account)
    cookie = start_session(session, user, config.session_ttl_s)
    response = RedirectResponse(next_path, status_code=303)
    response.delete_cookie(STATE_COOKIE, path="/auth/github")
    response.set_cookie(COOKIE, cookie, max_age=config.session_ttl_s, path="/", httponly=True,
                        samesite="lax", secure=_base(request).startswith("https://"))
    return response


@signin_pages.post("/signout")
def signout(request: Request, session: Db, visitor: Viewer, form: Form) -> Response:
    """End this browser's sign-in (the form's CSRF token must be the session's)."""
    if visitor is not None:
        try:
            check_csrf(visitor, form.get("csrf_token"))
        except Refused as exc:
            return _signin_page(request, visitor, status_code=exc.status, error=exc.message)
        end_session(session, visitor)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response
