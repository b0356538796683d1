"""A submission's scores broken down: per judge dimension and per skill, each with its CI95,
so the leaderboard can rank by one dimension or over the items of one skill."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..models import DIMENSIONS, ItemId, ItemResult
from ..report import ResultsDocument, run_score, version_items
from ..scoring import bootstrap_ci

Score = list[float | None]
"""``[score, ci_low, ci_high]`` (the interval ``None`` when it cannot be computed)."""


def skills_of(item: ItemResult | dict[str, Any]) -> list[str]:
    """The skills an item's requirement exercises (a dynamic item's ``requirement.metadata
    .skills``); none for static items."""
    requirement = (item.requirement if isinstance(item, ItemResult)
                   else item.get("requirement")) or {}
    metadata = requirement.get("metadata") if isinstance(requirement, dict) else None
    skills = metadata.get("skills") if isinstance(metadata, dict) else None
    return [str(skill) for skill in skills] if isinstance(skills, list) else []


def requirement_of(item: ItemResult) -> str:
    """The requirement ``item`` measures, ``DATASET/TASK``, read from its id (which the hub's
    plan decides and its replay checks), never from the ``cluster`` the submitter wrote: one
    who split a task's samples into clusters of their own would narrow their intervals."""
    found = ItemId.try_parse(item.item_id)
    return item.item_id if found is None else str(found.task_item)


def _dimension(items: Sequence[ItemResult], name: str, seed: int) -> Score | None:
    clusters: dict[str, list[float]] = {}
    for item in items:
        if item.panel is not None and item.panel.status == "scored" \
                and name in item.panel.dimensions:
            clusters.setdefault(requirement_of(item), []).append(
                float(item.panel.dimensions[name]))
    if not clusters:
        return None
    interval = bootstrap_ci(clusters, seed=seed)
    return [round(interval.estimate, 2), round(interval.low, 2), round(interval.high, 2)]


def _scores(items: Sequence[ItemResult], seed: int) -> dict[str, Any]:
    overall, ci95 = run_score(items, seed=seed)
    dimensions = {name: score for name in DIMENSIONS
                  if (score := _dimension(items, name, seed)) is not None}
    return {"items": len(items),
            "score": None if overall is None else
            [overall, ci95.low if ci95 else None, ci95.high if ci95 else None],
            "dimensions": dimensions}


def breakdown(document: ResultsDocument) -> dict[str, Any]:
    """``{"dimensions": {name: Score}, "skills": {skill: {"items", "score", "dimensions"}}}``
    over the items that measure the model, with the run's seed for the bootstrap."""
    items = version_items(document.items)
    seed = document.run.seed
    by_skill: dict[str, list[ItemResult]] = {}
    for item in items:
        for skill in skills_of(item):
            by_skill.setdefault(skill, []).append(item)
    skills = {}
    for skill in sorted(by_skill):
        scores = _scores(by_skill[skill], seed)
        if scores["score"] is not None:
            skills[skill] = scores
    return {"dimensions": _scores(items, seed)["dimensions"], "skills": skills}


def score_of(submission_breakdown: dict[str, Any] | None, overall: Score, *,
             skill: str | None = None, dimension: str | None = None) -> Score | None:
    """The score the leaderboard ranks a submission by: ``overall`` (its score and CI95), or
    that of one ``dimension``, over all items or those of one ``skill``; ``None`` when the
    submission has no such score."""
    found = submission_breakdown or {}
    if skill is not None:
        found = (found.get("skills") or {}).get(skill) or {}
        if not found:
            return None
        if dimension is None:
            return found.get("score")
    elif dimension is None:
        return overall
    return (found.get("dimensions") or {}).get(dimension)
