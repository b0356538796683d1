"""Reading the hub: the leaderboard (each model ranked by the pool of its verified submissions),
a model, a submission."""

from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import func, select
from sqlalchemy.orm import Session, undefer

from ._attempts import model_attempts
from ._breakdown import Score, score_of, skills_of
from ._database import aware
from ._standings import standings
from ._submissions import RANKED_STATUSES, UNVERIFIED
from ._tables import Flag, StatusChange, Submission, User

Strategy = Literal["pooled"]
"""How the leaderboard scores a model: the pool of its verified runs, the only way (the API
and the page take it by name, so a request for the former ``best``, ``mean`` or ``latest``
is refused rather than answered otherwise: ranking on a model's best run rewards running
many times and submitting the best)."""
SortKey = Literal["score", "count", "ci_width", "model"]
ComplexityLabel = Literal["C1", "C2", "C3", "C4", "mixed", "none"]
"""A run's complexity as the leaderboard filters by it (:func:`complexity_label`)."""
Dimension = Literal["functionality", "quality", "logic", "security", "engineering"]
"""The judge dimensions (``models.DIMENSIONS``) the leaderboard can rank by."""
HELD_STATUSES = ("flagged", "disputed", UNVERIFIED)
"""Statuses out of the ranking that a leaderboard row counts (``removed`` ones are gone)."""
POOLED = "verified"
"""The status of the submissions a model is ranked by: replayed by the hub and matched.
``accepted`` ones (every check passed, not re-verified yet) are counted as pending."""


def complexity_label(mix: dict[str, Any]) -> str:
    """A run's complexity: its one complexity (``C1``-``C4``, ``none`` for static suites),
    or ``mixed``."""
    return next(iter(mix)) if len(mix) == 1 else "mixed"


@dataclass(frozen=True)
class Board:
    """The leaderboard's rows, and how the ranked ones were ranked (``None``: none is)."""

    rows: list[dict[str, Any]]
    ranking: dict[str, Any] | None


def leaderboard(session: Session, *, suite: str | None = None, complexity: str | None = None,
                skill: str | None = None, dimension: str | None = None,
                sort: SortKey = "score", limit: int = 100, offset: int = 0) -> Board:
    """One row per model with accepted or verified submissions (of ``suite`` and
    ``complexity`` when given), ranked by the pool of its verified ones' item scores, as
    their evidence records them (:mod:`._standings`): ``score`` the mean item score, with
    ``ci_low``/``ci_high`` its CI95 (a bootstrap over requirements), ``rank`` shared by the
    models the data cannot separate (``rank_label`` the places they span, ``tied``),
    ``rank_interval`` its 95 % rank interval, ``diff_to_leader``; ``best`` and ``latest``
    its verified runs' scores (shown, never ranked on), ``count`` how many it pools,
    ``pending`` its accepted ones awaiting re-verification. The score is the overall one, or
    that of one judge ``dimension``, over all items or over those of one ``skill``
    (submissions without such a score are left out). A model without a verified run comes
    after the ranked ones, without a rank. Each row carries its latest submission's
    status, how many of the model's submissions are out of the ranking (flagged, disputed,
    unverified) and its attempts (nonces fetched for it) and abandoned ones."""
    query = select(Submission).where(Submission.status.in_(RANKED_STATUSES))
    if suite:
        query = query.where(Submission.suite == suite)
    if skill is not None or dimension is not None:  # else the breakdowns are not read
        query = query.options(undefer(Submission.breakdown))
    by_model: dict[str, list[tuple[Submission, Score]]] = defaultdict(list)
    for submission in session.scalars(query.order_by(Submission.received_at, Submission.id)):
        if complexity is not None and complexity_label(submission.complexity) != complexity:
            continue
        overall: Score = [submission.overall, submission.ci_low, submission.ci_high]
        score = overall if skill is None and dimension is None else score_of(
            submission.breakdown, overall, skill=skill, dimension=dimension)
        if score is not None and score[0] is not None:
            by_model[submission.model].append((submission, score))
    ranked_runs = {model: [(submission.id, submission.head) for submission, _ in runs
                           if submission.status == POOLED] for model, runs in by_model.items()}
    found = standings(ranked_runs, lambda ids: _requirement_scores(session, ids),
                      skill=skill, dimension=dimension)
    places = found.models if found is not None else {}
    held = _held_out(session, list(by_model))
    attempts = model_attempts(session, list(by_model))
    rows = []
    for model, runs in by_model.items():
        verified = [score for submission, score in runs if submission.status == POOLED]
        estimates = [float(score[0]) for score in verified if score[0] is not None]
        latest = runs[-1][0]
        tried = attempts.get(model, {})
        place = places.get(model)
        rows.append({
            "model": model, **(place.fields() if place is not None else UNRANKED),
            "best": max(estimates) if estimates else None,
            "latest": estimates[-1] if estimates else None,
            "count": len(verified), "pending": len(runs) - len(verified),
            "latest_submission": latest.id, "status": latest.status,
            "held_out": held.get(model, {}),
            "attempts": tried.get("attempts", 0), "abandoned": tried.get("abandoned", 0),
        })
    ranked = [row for row in rows if row["model"] in places]
    unranked = sorted((row for row in rows if row["model"] not in places),
                      key=lambda row: row["model"])
    if sort == "model":
        ranked.sort(key=lambda row: row["model"])
    elif sort == "ci_width":
        ranked.sort(key=lambda row: (row["ci_width"], row["model"]))
    elif sort == "count":
        ranked.sort(key=lambda row: (-row["count"], row["model"]))
    else:
        ranked.sort(key=lambda row: places[row["model"]].position)
    return Board(rows=[*ranked, *unranked][offset: offset + limit],
                 ranking=found.describe() if found is not None else None)


def model_standing(session: Session, model: str) -> dict[str, Any] | None:
    """``model``'s row of the leaderboard (every suite, the overall score; :func:`leaderboard`
    says its fields) with ``tied_with``, the other models of its group, ``ranked``, how many
    models the leaderboard ranks, and ``basis``, how it ranked them; ``None`` when the model
    has no accepted or verified submission."""
    board = leaderboard(session, limit=sys.maxsize)
    row = next((found for found in board.rows if found["model"] == model), None)
    if row is None:
        return None
    ranked = [found for found in board.rows if found["rank"] is not None]
    return {**row, "ranked": len(ranked),
            "tied_with": [found["model"] for found in ranked
                          if found["group"] == row["group"] and found["model"] != model]
            if row["tied"] else [],
            "basis": board.ranking["basis"] if board.ranking else None}


UNRANKED: dict[str, Any] = {
    "score": None, "ci_low": None, "ci_high": None, "ci_width": None, "rank": None,
    "rank_label": None, "rank_interval": None, "group": None, "tied": False,
    "diff_to_leader": None, "requirements": 0, "items": 0}
"""The ranking's fields of a model without a verified run (with the filters' scores)."""


def _requirement_scores(session: Session, ids: list[int]) -> dict[int, dict[str, Any] | None]:
    return {row_id: kept for row_id, kept in session.execute(
        select(Submission.id, Submission.requirement_scores).where(Submission.id.in_(ids)))}


def _held_out(session: Session, models: list[str]) -> dict[str, dict[str, int]]:
    """Per model, its submissions out of the ranking by status (flagged, disputed,
    unverified)."""
    held: dict[str, dict[str, int]] = defaultdict(dict)
    if not models:
        return held
    counts = session.execute(
        select(Submission.model, Submission.status, func.count(Submission.id))
        .where(Submission.model.in_(models), Submission.status.in_(HELD_STATUSES))
        .group_by(Submission.model, Submission.status))
    for model, status, count in counts:
        held[model][status] = count
    return held


def unverified_runs(session: Session, *, limit: int = 100, offset: int = 0
                    ) -> list[dict[str, Any]]:
    """The kept submissions the hub could not re-verify, newest first: each with its
    claimed score (not ranked) and ``why``, the reason its history gives."""
    runs = list(session.scalars(select(Submission).where(Submission.status == UNVERIFIED)
                                .order_by(Submission.received_at.desc(), Submission.id.desc())
                                .offset(offset).limit(limit)))
    reasons = {row_id: reason for row_id, reason in session.execute(
        select(StatusChange.submission_id, StatusChange.reason).where(
            StatusChange.submission_id.in_([run.id for run in runs]),
            StatusChange.status == UNVERIFIED).order_by(StatusChange.id))}
    return [{**submission_summary(session, run), "why": reasons.get(run.id, "")} for run in runs]


def ranked_skills(session: Session) -> list[str]:
    """The skills of the ranked submissions' items (the leaderboard's skill filter)."""
    found: set[str] = set()
    for breakdown in session.scalars(select(Submission.breakdown).where(
            Submission.status.in_(RANKED_STATUSES))):
        found.update((breakdown or {}).get("skills") or {})
    return sorted(found)


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
        "receipt": submission.receipt, "breakdown": submission.breakdown or {},
        "reverification": submission.reverification,
        "history": [{"status": change.status, "reason": change.reason, "actor": change.actor,
                     "at": aware(change.at).isoformat(timespec="seconds")} for change in history],
        "reports": [{"id": flag.id, "reason": flag.reason, "resolution": flag.resolution,
                     "by": _name(session, flag.user_id),
                     "at": aware(flag.created_at).isoformat(timespec="seconds")}
                    for flag in flags],
    }


def _name(session: Session, user_id: int) -> str | None:
    user = session.get(User, user_id)
    return user.name if user else None


def submission_items(submission: Submission) -> list[dict[str, Any]]:
    """The submission's items as submitted, one row each for the submission's page."""
    rows = []
    for item in submission.document.get("items") or []:
        panel = item.get("panel") or {}
        rows.append({
            "item_id": item.get("item_id"), "status": item.get("status"),
            "score": item.get("score"), "pass_ratio": item.get("pass_ratio"),
            "tests": f"{item.get('tests_passed')}/{item.get('tests_total')}",
            "complexity": item.get("complexity"), "skills": skills_of(item),
            "agreement": panel.get("agreement"),
        })
    return rows


def model_submissions(session: Session, model: str) -> list[dict[str, Any]]:
    """Every submission of ``model``, newest first, whatever its status."""
    runs = session.scalars(select(Submission).where(Submission.model == model)
                           .order_by(Submission.received_at.desc(), Submission.id.desc()))
    return [submission_summary(session, run) for run in runs]
