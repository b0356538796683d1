"""Refusals on the pages: the reason on an HTML page with the usual header (the API answers
JSON)."""

from __future__ import annotations

from fastapi import Request
from starlette.responses import Response

from ._errors import Refused
from ._sessions import COOKIE, visitor_for_cookie


def is_page(request: Request) -> bool:
    """Whether a request is for the pages (answered in HTML) rather than the API (JSON)."""
    path = request.url.path
    return not (path.startswith("/api/") or path in ("/healthz", "/openapi.json", "/docs"))


def error_page(request: Request, exc: Refused) -> Response:
    """A refusal on the pages: its one-line reason, with who is signed in in the header."""
    from ._templates import render  # Jinja2's templates: loaded with the pages

    with request.app.state.sessions() as session:
        visitor = visitor_for_cookie(session, request.cookies.get(COOKIE))
        return render(request, "error.html", {"error": exc.message, "code": exc.code},
                      visitor, status_code=exc.status)
