"""Re-verification: the hub replays a submission's plan from its seed and compares.

Two replays, both planned from the run's seed (so the requirements must be those the seed
draws) and graded in the hub's own sandbox:

- **answers**: every item answered with the response the run submitted (the offline
  ``r2r/samples`` model): the status and pass ratio of each item (and, with the offline
  static judge, its score) must be what the submission claims. No model is called.
- **model**: a sample of the items, chosen by the hub when it re-verifies, answered by the
  run's model through the hub's own model access: the sample's mean pass ratio (and mean
  score, with the static judge) must be within the hub's tolerances of what the submission
  claims for those items. This is what shows the answers came from that model.

A submission is ``verified`` when both match, ``disputed`` when either differs, and stays as
it was (``unverifiable``, with the reason) when a replay cannot be made.
"""

from __future__ import annotations

import fnmatch
import json
import random
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any, Literal

from sqlalchemy import exists, select
from sqlalchemy.orm import Session

from ..models import INFRA_STATUSES, STATIC_JUDGE
from ..suites import DynamicOptions, load_suite
from ._checks import MIN_RANKED_ITEMS
from ._config import HubConfig
from ._replay import (
    generation_arguments,
    replay_arguments,
    run_replay,
    selectable,
    why_not_replayable,
)
from ._submissions import RANKED_STATUSES, kept_submission, record_status
from ._tables import Flag, StatusChange, Submission

PASS_RATIO_TOLERANCE = 0.01
SCORE_TOLERANCE = 2.0
"""The answers replay's tolerances per item: grading the same response twice agrees."""
ACTOR = "reverify"

Verdict = Literal["verified", "disputed", "unverifiable"]


@dataclass(frozen=True)
class Replay:
    """One replay's outcome: ``reasons`` say what differs (disputed) or why the replay could
    not be made (unverifiable); ``compared`` rows hold each compared item's claimed and
    replayed figures."""

    kind: Literal["answers", "model"]
    status: Verdict
    reasons: list[str]
    compared: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Reverification:
    """Both replays and the verdict over them."""

    answers: Replay
    model: Replay

    @property
    def status(self) -> Verdict:
        statuses = {self.answers.status, self.model.status}
        if "disputed" in statuses:
            return "disputed"
        return "verified" if statuses == {"verified"} else "unverifiable"

    @property
    def reasons(self) -> list[str]:
        return [f"{replay.kind}: {reason}" for replay in (self.answers, self.model)
                for reason in replay.reasons]

    def describe(self) -> str:
        """One paragraph for the submission's history."""
        parts = []
        for replay in (self.answers, self.model):
            what = {"answers": "its answers graded again", "model": "its model asked again"}
            head = f"{what[replay.kind]} ({len(replay.compared)} items): {replay.status}"
            parts.append(head + (": " + "; ".join(replay.reasons[:8]) if replay.reasons else ""))
        return " | ".join(parts)


def reverify(document: dict[str, Any], config: HubConfig, *, sample: int | None = None,
             rng: random.Random | None = None, workdir: Path | None = None) -> Reverification:
    """Replay ``document`` (a submitted results JSON) both ways. The answers replay compares
    ``sample`` items (all when None), the model replay ``config.reverify_sample``; both
    chosen with ``rng`` (default: the system's randomness, so a submitter cannot tell)."""
    rng = rng or random.SystemRandom()
    with tempfile.TemporaryDirectory(prefix="r2r-reverify-", dir=workdir) as directory:
        base = Path(directory)
        (base / "answers").mkdir()
        (base / "model").mkdir()
        answers = _replay_answers(document, base / "answers", sample, rng)
        model = _replay_model(document, base / "model", config, rng)
    return Reverification(answers, model)


def _replay_answers(document: dict[str, Any], directory: Path, sample: int | None,
                    rng: random.Random) -> Replay:
    run, items = document["run"], document["items"]
    samples, results = directory / "samples.jsonl", directory / "replay.json"
    reason = why_not_replayable(run)
    if reason is not None:
        return Replay("answers", "unverifiable", [reason])
    ordered = sorted(items, key=lambda item: (item["task_id"], item.get("sample") or 0))
    answered = {item["task_id"] for item in items}
    # A requirement the seed draws but the run left out gets an empty answer: it is
    # replayed, and reported as left out.
    missing = [task_id for task_id in _planned_task_ids(run) if task_id not in answered]
    # An answer cut by the token limit is replayed as cut: truncated again, not a format error.
    samples.write_text("".join(json.dumps({"task_id": item["task_id"],
                                           "completion": item["response"],
                                           "finish_reason": item.get("finish_reason")}) + "\n"
                               for item in ordered) +
                       "".join(json.dumps({"task_id": task_id, "completion": ""}) + "\n"
                               for task_id in missing), encoding="utf-8")
    replayed = run_replay(replay_arguments(run, f"r2r/samples:{samples}", results), directory,
                          results)
    if isinstance(replayed, str):
        return Replay("answers", "unverifiable", [replayed])
    chosen = list(items)
    if sample is not None and sample < len(chosen):
        chosen = rng.sample(chosen, sample)
    static = _static_judged(run)
    reasons = []
    left_out = sorted(set(replayed) - {item["item_id"] for item in items})
    if left_out:
        reasons.append(f"the run left out {len(left_out)} item(s) its seed draws: "
                       f"{', '.join(left_out[:5])}")
    rows = []
    for item in chosen:
        again = replayed.get(item["item_id"])
        reasons += _differences(item, again, compare_scores=static)
        if again is not None:
            rows.append(_row(item, again))
    return Replay("answers", "disputed" if reasons else "verified", reasons, rows)


def _replay_model(document: dict[str, Any], directory: Path, config: HubConfig,
                  rng: random.Random) -> Replay:
    run, items = document["run"], document["items"]
    model = str(run["model"])
    if model.startswith("r2r/samples"):
        return Replay("model", "unverifiable", [
            "the run answered from a samples file: there is no model to ask"])
    patterns = [pattern.strip() for pattern in config.reverify_models.split(",")
                if pattern.strip()]
    if not any(fnmatch.fnmatchcase(model, pattern) for pattern in patterns):
        reason = (f"this hub does not call {model} (its R2R_HUB_REVERIFY_MODELS: "
                  f"{config.reverify_models or 'none'})")
        return Replay("model", "unverifiable", [reason])
    if config.reverify_sample < 1:
        return Replay("model", "unverifiable", ["this hub asks no model (R2R_HUB_REVERIFY_SAMPLE=0)"])
    reason = why_not_replayable(run)
    if reason is not None:
        return Replay("model", "unverifiable", [reason])
    candidates = [item for item in items
                  if item["status"] not in INFRA_STATUSES and selectable(item["item_id"])]
    if not candidates:
        return Replay("model", "unverifiable", ["no item of the run can be asked again"])
    chosen = rng.sample(candidates, min(config.reverify_sample, len(candidates)))
    results = directory / "replay.json"
    replayed = run_replay([*replay_arguments(run, model, results), *generation_arguments(run)],
                          directory, results, select=[item["item_id"] for item in chosen])
    if isinstance(replayed, str):
        return Replay("model", "unverifiable", [replayed])
    rows, failed = [], []
    for item in chosen:
        again = replayed.get(item["item_id"])
        if again is None:  # the answers replay says whether the seed draws it
            failed.append(f"{item['item_id']}: not replayed")
            continue
        if again["status"] in INFRA_STATUSES:
            failed.append(f"{item['item_id']}: {again.get('reason') or again['status']}")
            continue
        if not _same_requirement(item, again):
            return Replay("model", "disputed", [
                f"{item['item_id']}: the requirement differs from the one the seed draws"])
        rows.append(_row(item, again))
    if not rows:
        return Replay("model", "unverifiable", [
            f"no answer of {model} to compare ({len(failed)} failed; first: {failed[0]})"
            if failed else "nothing to compare"])
    return Replay("model", *_compare_sample(rows, config, static=_static_judged(run)), rows)


def _compare_sample(rows: list[dict[str, Any]], config: HubConfig, *, static: bool
                    ) -> tuple[Verdict, list[str]]:
    """The model replay's verdict: the sample's mean pass ratio (and mean score, when the
    scores are the static judge's) within the hub's tolerances of the claimed means."""
    claimed = fmean(row["claimed_pass_ratio"] for row in rows)
    replayed = fmean(row["replayed_pass_ratio"] for row in rows)
    reasons = []
    if abs(claimed - replayed) > config.reverify_pass_tolerance:
        reasons.append(f"mean pass ratio over {len(rows)} items: claimed {claimed:.3f}, the "
                       f"model gives {replayed:.3f} (tolerance {config.reverify_pass_tolerance})")
    scored = [row for row in rows
              if row["claimed_score"] is not None and row["replayed_score"] is not None]
    if static and scored:
        claimed_score = fmean(row["claimed_score"] for row in scored)
        replayed_score = fmean(row["replayed_score"] for row in scored)
        if abs(claimed_score - replayed_score) > config.reverify_score_tolerance:
            reasons.append(f"mean score over {len(scored)} items: claimed {claimed_score:.1f}, "
                           f"the model gives {replayed_score:.1f} "
                           f"(tolerance {config.reverify_score_tolerance})")
    if reasons:
        worst = sorted(rows, key=lambda row: row["replayed_pass_ratio"] - row["claimed_pass_ratio"])
        reasons += [f"{row['item_id']}: pass ratio claimed {row['claimed_pass_ratio']:.3f}, "
                    f"replayed {row['replayed_pass_ratio']:.3f}" for row in worst[:3]
                    if row["replayed_pass_ratio"] < row["claimed_pass_ratio"]]
    return ("disputed" if reasons else "verified"), reasons


def _row(item: dict[str, Any], again: dict[str, Any]) -> dict[str, Any]:
    return {"item_id": item["item_id"],
            "claimed_status": item["status"], "replayed_status": again["status"],
            "claimed_pass_ratio": item["pass_ratio"], "replayed_pass_ratio": again["pass_ratio"],
            "claimed_score": item.get("score"), "replayed_score": again.get("score")}


def _same_requirement(item: dict[str, Any], again: dict[str, Any]) -> bool:
    return all(item.get(key) == again.get(key) for key in ("requirement", "prompt"))


def _static_judged(run: dict[str, Any]) -> bool:
    return set(run.get("judges") or []) <= {STATIC_JUDGE}


def _planned_task_ids(run: dict[str, Any]) -> list[str]:
    """The task ids the run's suite holds for its seed (the engine's own draw)."""
    settings = run.get("settings") or {}
    dynamic = DynamicOptions(rounds=settings.get("rounds", 10),
                             complexities=tuple(settings.get("complexity") or ()),
                             skills=tuple(settings.get("skills") or ()),
                             domains=tuple(settings.get("domains") or ()))
    return list(dict.fromkeys(task.task_id for task in
                              load_suite(run["suite"], seed=run["seed"], dynamic=dynamic)))


def _differences(item: dict[str, Any], again: dict[str, Any] | None, *,
                 compare_scores: bool) -> list[str]:
    name = item["item_id"]
    if again is None:
        return [f"{name}: the seed does not draw this requirement"]
    if not _same_requirement(item, again):
        return [f"{name}: the requirement differs from the one the seed draws"]
    found = []
    if item["status"] != again["status"]:
        found.append(f"{name}: status {item['status']}, the replay gives {again['status']}")
    if abs(item["pass_ratio"] - again["pass_ratio"]) > PASS_RATIO_TOLERANCE:
        found.append(f"{name}: pass ratio {item['pass_ratio']:.3f}, the replay gives "
                     f"{again['pass_ratio']:.3f}")
    if compare_scores and item.get("score") is not None and again.get("score") is not None \
            and abs(item["score"] - again["score"]) > SCORE_TOLERANCE:
        found.append(f"{name}: score {item['score']}, the replay gives {again['score']}")
    return found


def reverify_submission(session: Session, submission_id: int, config: HubConfig, *,
                        sample: int | None = None, rng: random.Random | None = None
                        ) -> Reverification:
    """Re-verify a kept submission and record the outcome in its history, and both replays'
    compared items with the submission."""
    submission = kept_submission(session, submission_id)
    outcome = reverify(submission.document, config, sample=sample, rng=rng)
    record_status(session, submission, _new_status(session, submission, outcome.status),
                  outcome.describe(), ACTOR)
    submission.reverification = {
        "status": outcome.status,
        "replays": [{"kind": replay.kind, "status": replay.status, "reasons": replay.reasons,
                     "items": replay.compared} for replay in (outcome.answers, outcome.model)]}
    session.commit()
    return outcome


def _new_status(session: Session, submission: Submission, verdict: Verdict) -> str:
    """A verified run is ranked, including one the hub's statistical checks flagged (the
    replay answers them), but not one too small to rank, one a user reported (an admin
    decides) or one an admin removed; a disputed one leaves the ranking; an unverifiable
    one keeps its status."""
    if verdict == "unverifiable" or submission.status == "removed":
        return submission.status
    if verdict == "disputed":
        return "disputed"
    if submission.status in RANKED_STATUSES:
        return "verified"
    reported = session.scalar(select(Flag.id).where(Flag.submission_id == submission.id,
                                                    Flag.resolution.is_(None)))
    answered = submission.status == "flagged" and reported is None \
        and submission.items >= MIN_RANKED_ITEMS
    return "verified" if answered else submission.status


def pending_reverification(session: Session) -> list[int]:
    """Kept submissions (accepted or flagged) the hub has not re-verified yet, oldest first."""
    done = exists().where(StatusChange.submission_id == Submission.id,
                          StatusChange.actor == ACTOR)
    return list(session.scalars(select(Submission.id).where(
        Submission.status.in_((*RANKED_STATUSES, "flagged")), ~done)
        .order_by(Submission.received_at, Submission.id)))
