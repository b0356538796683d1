"""Rendering the pages: Jinja2's templates, with who is signed in for the header."""

from __future__ import annotations

from importlib import resources
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates
from starlette.responses import Response

from ._sessions import Visitor

templates = Jinja2Templates(directory=str(resources.files(__package__) / "templates"))


def render(request: Request, template: str, context: dict[str, Any], visitor: Visitor | None,
           *, status_code: int = 200) -> Response:
    """``template`` over ``context``; the header shows ``visitor`` (or a sign-in link) and
    the forms carry their session's CSRF token."""
    return templates.TemplateResponse(request, template, {
        **context, "visitor": visitor, "csrf_token": visitor.csrf_token if visitor else "",
        "path": request.url.path}, status_code=status_code)
