"""Reading the hub: the leaderboard (computed from accepted submissions), a model, a submission."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from ._database import aware
from ._submissions import RANKED_STATUSES
from ._tables import Flag, StatusChange, Submission, User

Strategy = Literal["best", "mean", "latest"]
SortKey = Literal["score", "count", "ci_width", "model"]


def complexity_label(mix: dict[str, Any]) -> str:
    """A run's complexity: its one complexity (``C1``-``C4``, ``none`` for static suites),
    or ``mixed``."""
    return next(iter(mix)) if len(mix) == 1 else "mixed"


def leaderboard(session: Session, *, strategy: Strategy = "best", suite: str | None = None,
                complexity: str | None = None, sort: SortKey = "score", limit: int = 100,
                offset: int = 0) -> list[dict[str, Any]]:
    """One row per model over its ranked submissions (of ``suite`` and ``complexity`` when
    given): its score by ``strategy`` (best, mean or latest), best, mean and latest, their
    count and the mean CI95 width."""
    query = select(Submission).where(Submission.status.in_(RANKED_STATUSES))
    if suite:
        query = query.where(Submission.suite == suite)
    by_model: dict[str, list[Submission]] = defaultdict(list)
    for submission in session.scalars(query.order_by(Submission.received_at, Submission.id)):
        if complexity is None or complexity_label(submission.complexity) == complexity:
            by_model[submission.model].append(submission)
    rows = []
    for model, runs in by_model.items():
        scores = [run.overall for run in runs]
        widths = [run.ci_high - run.ci_low for run in runs
                  if run.ci_high is not None and run.ci_low is not None]
        latest = runs[-1]
        row: dict[str, Any] = {
            "model": model, "best": max(scores), "mean": round(sum(scores) / len(scores), 2),
            "latest": latest.overall, "count": len(runs),
            "ci_width": round(sum(widths) / len(widths), 2) if widths else None,
            "ci_low": latest.ci_low, "ci_high": latest.ci_high,
            "latest_submission": latest.id,
        }
        row["score"] = row[strategy]
        rows.append(row)
    if sort == "model":
        rows.sort(key=lambda row: row["model"])
    elif sort == "ci_width":
        rows.sort(key=lambda row: (row["ci_width"] is None, row["ci_width"] or 0.0))
    else:
        rows.sort(key=lambda row: (-row[sort], row["model"]))
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return rows[offset: offset + limit]


def submission_summary(session: Session, submission: Submission) -> dict[str, Any]:
    user = session.get(User, submission.user_id)
    return {
        "id": submission.id, "run_id": submission.run_id, "model": submission.model,
        "suite": submission.suite, "user": user.name if user else None,
        "status": submission.status, "overall": submission.overall,
        "ci95": [submission.ci_low, submission.ci_high], "dimensions": submission.dimensions,
        "agreement": submission.agreement, "isolation": submission.isolation,
        "complexity": submission.complexity,
        "complexity_label": complexity_label(submission.complexity), "items": submission.items,
        "flags": submission.flags_reasons,
        "received_at": aware(submission.received_at).isoformat(timespec="seconds"),
    }


def submission_details(session: Session, submission: Submission) -> dict[str, Any]:
    """A submission with its status history, flags, receipt and evidence head."""
    history = session.scalars(select(StatusChange).where(
        StatusChange.submission_id == submission.id).order_by(StatusChange.id))
    flags = session.scalars(select(Flag).where(Flag.submission_id == submission.id)
                            .order_by(Flag.id))
    return {
        **submission_summary(session, submission),
        "evidence_head": submission.head, "evidence_entries": len(submission.evidence),
        "receipt": submission.receipt,
        "reverification": submission.reverification,
        "history": [{"status": change.status, "reason": change.reason, "actor": change.actor,
                     "at": aware(change.at).isoformat(timespec="seconds")} for change in history],
        "reports": [{"id": flag.id, "reason": flag.reason, "resolution": flag.resolution}
                    for flag in flags],
    }


def model_submissions(session: Session, model: str) -> list[dict[str, Any]]:
    """Every submission of ``model``, newest first, whatever its status."""
    runs = session.scalars(select(Submission).where(Submission.model == model)
                           .order_by(Submission.received_at.desc(), Submission.id.desc()))
    return [submission_summary(session, run) for run in runs]
