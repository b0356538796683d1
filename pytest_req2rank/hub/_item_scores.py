"""What the leaderboard ranks a submission by: its items' scores per requirement, read from
its checked evidence when it is kept (never from the summary the submitter computed)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..evidence import item_entries, sha256_hex
from ..models import DIMENSIONS
from ..report import ResultsDocument, version_items
from ._breakdown import requirement_of, skills_of

FORMAT = 1
"""The layout of ``Submission.requirement_scores``."""


def requirement_scores(document: ResultsDocument, evidence: Sequence[dict[str, Any]]
                       ) -> dict[str, Any]:
    """``{"format": 1, "requirements": [{"key", "skills", "scores", "dimensions"}, ...]}``:
    one entry per requirement (:func:`requirement_of`: a task, whichever of its samples) of
    the items that measure the model. ``scores`` are the item scores the evidence chain records
    (an item without one, an infrastructure fault, is left out); ``dimensions`` the judge
    panel's per-dimension scores of its scored items (whose verdicts bind them: each entry
    hashes the whole item). ``key`` names the requirement across submissions: its task
    and the hashes of its requirement as the model saw it, so two runs share a key only
    when they asked the same requirement. Call after the evidence checks: every item has
    its entry."""
    entries = {entry["item_id"]: entry for entry in item_entries(evidence)}
    found: dict[str, dict[str, Any]] = {}
    for item in version_items(document.items):
        entry = entries[item.item_id]
        cluster = found.setdefault(requirement_of(item), {
            "hashes": set(), "skills": set(), "scores": [], "dimensions": {}})
        cluster["hashes"].add(str(entry["requirement_sha256"]))
        cluster["skills"].update(skills_of(item))
        if entry.get("score") is not None:
            cluster["scores"].append(float(entry["score"]))
        if item.panel is not None and item.panel.status == "scored":
            for name in DIMENSIONS:
                if name in item.panel.dimensions:
                    cluster["dimensions"].setdefault(name, []).append(
                        float(item.panel.dimensions[name]))
    return {"format": FORMAT, "requirements": [
        {"key": f"{name}@{sha256_hex(sorted(cluster['hashes']))[:16]}",
         "skills": sorted(cluster["skills"]), "scores": cluster["scores"],
         "dimensions": cluster["dimensions"]}
        for name, cluster in sorted(found.items())]}


def scores_by_requirement(kept: dict[str, Any] | None, *, skill: str | None = None,
                          dimension: str | None = None) -> dict[str, list[float]]:
    """A submission's scores per requirement key (:func:`requirement_scores`): the item
    scores, or one judge ``dimension``'s, over every requirement or those of one ``skill``;
    requirements without such a score are left out."""
    if not kept or kept.get("format") != FORMAT:
        return {}
    chosen: dict[str, list[float]] = {}
    for requirement in kept["requirements"]:
        if skill is not None and skill not in requirement["skills"]:
            continue
        values = requirement["scores"] if dimension is None \
            else requirement["dimensions"].get(dimension, [])
        if values:
            chosen.setdefault(requirement["key"], []).extend(values)
    return chosen
