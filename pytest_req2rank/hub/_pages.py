"""The hub's HTML pages (Jinja2): leaderboard, model, submission, and the submission page's
forms (a report by a signed-in user; an admin's resolution)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, get_args

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.responses import Response

from ..models import DIMENSIONS
from ._attempts import user_attempts
from ._board import (
    ComplexityLabel,
    SortKey,
    Strategy,
    leaderboard,
    model_standing,
    model_submissions,
    ranked_skills,
    submission_details,
    submission_items,
    unverified_runs,
)
from ._config import HubConfig
from ._deps import Db, RowId, Viewer
from ._errors import Refused
from ._forms import Form
from ._history_chart import history_chart
from ._moderation import flag_submission, resolve_flag, review_submission
from ._sessions import Visitor, check_csrf
from ._submissions import kept_submission
from ._tables import Flag, Submission, User
from ._templates import render

pages = APIRouter(include_in_schema=False)


def _config(request: Request) -> HubConfig:
    return request.app.state.config  # type: ignore[no-any-return]

COMPLEXITIES = ["", *get_args(ComplexityLabel)]


@pages.get("/", response_class=HTMLResponse)
def leaderboard_page(request: Request, session: Db, visitor: Viewer,
                     strategy: Strategy = "pooled", sort: SortKey = "score",
                     suite: str | None = None,
                     complexity: Literal["", "C1", "C2", "C3", "C4", "mixed", "none"] = "",
                     skill: str | None = None,
                     dimension: Literal["", "functionality", "quality", "logic", "security",
                                        "engineering"] = "") -> Response:
    board = leaderboard(session, sort=sort, suite=suite or None,
                        complexity=complexity or None, skill=skill or None,
                        dimension=dimension or None)
    return render(request, "leaderboard.html", {
        "rows": board.rows, "ranking": board.ranking, "strategy": strategy, "sort": sort, "suite": suite,
        "complexity": complexity, "complexities": COMPLEXITIES, "skill": skill or "",
        "skills": ranked_skills(session), "dimension": dimension,
        "dimensions": DIMENSIONS}, visitor)


@pages.get("/unverified", response_class=HTMLResponse)
def unverified_page(request: Request, session: Db, visitor: Viewer) -> Response:
    """The runs the hub keeps but does not rank: it could not re-verify them."""
    return render(request, "unverified.html", {"rows": unverified_runs(session)}, visitor)


@pages.get("/favicon.ico")
def favicon() -> Response:
    """No icon: answered without an error, as browsers ask for one on every page they open
    (the API's JSON included)."""
    return Response(status_code=204)


@pages.get("/models/{model:path}", response_class=HTMLResponse)
def model_page(request: Request, model: str, session: Db, visitor: Viewer) -> Response:
    runs, attempts = model_submissions(session, model), user_attempts(session, model)
    if not runs and not attempts:
        raise Refused(404, "not_found", f"no submission of model {model!r}")
    return render(request, "model.html", {"model": model, "submissions": runs,
                                          "attempts": attempts,
                                          "standing": model_standing(session, model),
                                          "chart": history_chart(runs)}, visitor)


def _submission_page(request: Request, session: Session, submission: Submission,
                     visitor: Visitor | None, *, error: str = "", status_code: int = 200
                     ) -> Response:
    details = submission_details(session, submission)
    return render(request, "submission.html", {
        "s": details, "items": submission_items(submission), "error": error,
        "reverify": [change for change in details["history"] if change["actor"] == "reverify"],
        "dimension_names": DIMENSIONS, "reports_to_hold": _config(request).reports_to_hold}, visitor, status_code=status_code)


@pages.get("/submissions/{submission_id}", response_class=HTMLResponse)
def submission_page(request: Request, submission_id: RowId, session: Db, visitor: Viewer
                    ) -> Response:
    return _submission_page(request, session, kept_submission(session, submission_id), visitor)


def _form_action(request: Request, session: Session, submission: Submission,
                 visitor: Visitor | None, form: dict[str, str], what: str,
                 act: Callable[[User], object], anchor: str = "") -> Response:
    """Do ``act`` as the signed-in visitor who sent ``form`` with their session's CSRF token,
    then back to the submission's page; a refusal is shown on that page."""
    try:
        if visitor is None:
            raise Refused(401, "unauthenticated", f"sign in to {what}")
        check_csrf(visitor, form.get("csrf_token"))
        act(visitor.user)
    except Refused as exc:
        session.rollback()
        return _submission_page(request, session, submission, visitor, error=exc.message,
                                status_code=exc.status)
    return RedirectResponse(f"/submissions/{submission.id}{anchor}", status_code=303)


@pages.post("/submissions/{submission_id}/flags")
def flag_from_page(request: Request, submission_id: RowId, session: Db, visitor: Viewer,
                   form: Form) -> Response:
    """A signed-in user reports the submission (the API's rules: it leaves the ranking)."""
    submission = kept_submission(session, submission_id)
    return _form_action(request, session, submission, visitor, form, "report a submission",
                        lambda user: flag_submission(session, user, submission.id,
                                                     form.get("reason", ""), _config(request)),
                        "#reports")


@pages.post("/submissions/{submission_id}/flags/{flag_id}/resolve")
def resolve_from_page(request: Request, submission_id: RowId, flag_id: RowId, session: Db,
                      visitor: Viewer, form: Form) -> Response:
    """An admin upholds (the submission is removed) or dismisses a report."""
    submission = kept_submission(session, submission_id)

    def resolve(admin: User) -> None:
        flag = session.scalar(select(Flag).where(Flag.id == flag_id,
                                                 Flag.submission_id == submission.id))
        if flag is None:
            raise Refused(404, "not_found", f"submission {submission.id} has no report {flag_id}")
        resolve_flag(session, admin, flag.id, form.get("action", ""), form.get("note", ""),
                     _config(request))

    return _form_action(request, session, submission, visitor, form, "resolve a report",
                        resolve, "#reports")


@pages.post("/submissions/{submission_id}/review")
def review_from_page(request: Request, submission_id: RowId, session: Db, visitor: Viewer,
                     form: Form) -> Response:
    """An admin accepts (ranks) or removes a submission the hub's checks flagged."""
    submission = kept_submission(session, submission_id)
    return _form_action(request, session, submission, visitor, form, "review a submission",
                        lambda admin: review_submission(session, admin, submission.id,
                                                        form.get("action", ""),
                                                        form.get("note", "")))
