"""The hub's HTML pages (Jinja2): leaderboard, model, submission."""

from __future__ import annotations

from importlib import resources
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from ._board import leaderboard, model_submissions, submission_details
from ._deps import Db, RowId
from ._errors import Refused
from ._tables import Submission

templates = Jinja2Templates(directory=str(resources.files(__package__) / "templates"))
pages = APIRouter(include_in_schema=False)


@pages.get("/", response_class=HTMLResponse)
def leaderboard_page(request: Request, session: Db,
                     strategy: Literal["best", "mean", "latest"] = "best",
                     sort: Literal["score", "count", "ci_width", "model"] = "score",
                     suite: str | None = None,
                     complexity: Literal["", "C1", "C2", "C3", "C4", "mixed", "none"] = "") -> Any:
    rows = leaderboard(session, strategy=strategy, sort=sort, suite=suite or None,
                       complexity=complexity or None)
    return templates.TemplateResponse(request, "leaderboard.html", {
        "rows": rows, "strategy": strategy, "sort": sort, "suite": suite,
        "complexity": complexity})


@pages.get("/models/{model:path}", response_class=HTMLResponse)
def model_page(request: Request, model: str, session: Db) -> Any:
    runs = model_submissions(session, model)
    if not runs:
        raise Refused(404, "not_found", f"no submission of model {model!r}")
    return templates.TemplateResponse(request, "model.html", {"model": model, "submissions": runs})


@pages.get("/submissions/{submission_id}", response_class=HTMLResponse)
def submission_page(request: Request, submission_id: RowId, session: Db) -> Any:
    found = session.get(Submission, submission_id)
    if found is None:
        raise Refused(404, "not_found", f"no submission {submission_id}")
    return templates.TemplateResponse(request, "submission.html",
                                      {"s": submission_details(session, found)})
