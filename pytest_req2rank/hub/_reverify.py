"""Re-verification: the hub replays a submission's plan from its seed and compares.

Two replays, both planned from the run's seed (so the requirements must be those the seed
draws) and graded in the hub's own sandbox:

- **answers**: a sample of the items (all of a run of at most ``replay_max_items``; drawn
  after acceptance from the hub's secret and the submission's digest, :mod:`._sampling`)
  answered with the responses the run submitted (the offline ``r2r/samples`` model), every
  sample of a task as the run planned them: the status and pass ratio of each sampled item
  must be what the submission claims, and its scores too: the static judge's item by item,
  each LLM judge's (asked again by the hub, with its own keys) as a mean over the sample
  and item by item within :data:`JUDGE_ITEM_TOLERANCE`. A run judged by an LLM judge the
  hub does not call cannot be verified on its score: it is ``unverifiable``. No target
  model is called.
- **model**: a sample of the items, chosen by the hub when it re-verifies, answered by the
  run's model through the hub's own model access: the sample's mean pass ratio (and mean
  score, with the static judge) must be within the hub's tolerances of what the submission
  claims for those items. This is what shows the answers came from that model.

A submission is ``verified`` when both match, ``disputed`` when either differs (or its
settings cannot be replayed: the submission's making, decided once). When a replay cannot be
made (``unverifiable``), a failure of the hub's own (a provider outage, a crash, a timeout)
is retried with a doubling backoff up to ``reverify_attempts`` times; after that, or when
the hub cannot replay the run at all (its requirements, its model), an ``accepted``
submission becomes ``unverified``: kept, out of the ranking.
"""

from __future__ import annotations

import json
import logging
import tempfile
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from statistics import fmean
from typing import Any, Literal

from sqlalchemy import exists, select
from sqlalchemy.orm import Session

from ..models import INFRA_STATUSES, STATIC_JUDGE
from ..plan import build_plan, planned_tasks
from ..providers import litellm_provider
from ..settings import Settings
from ..suites import DynamicOptions, load_suite
from ._checks import MIN_RANKED_ITEMS
from ._config import HubConfig
from ._database import aware, now
from ._model_policy import llm_judges, why_not_called
from ._replay import (
    ReplayRefused,
    replay_options,
    run_replay,
    selectable,
    why_not_judged,
    why_not_replayable,
)
from ._sampling import (
    SampleDraw,
    describe_sample,
    draw_sample,
    hub_secret,
    sample_draw,
    sample_record,
)
from ._submissions import (
    RANKED,
    RANKED_STATUSES,
    UNVERIFIED,
    kept_submission,
    record_status,
    submission_digest,
)
from ._tables import Flag, StatusChange, Submission

log = logging.getLogger("req2rank.hub")

PASS_RATIO_TOLERANCE = 0.01
SCORE_TOLERANCE = 2.0
"""The answers replay's tolerances per item: grading the same response twice agrees."""
JUDGE_ITEM_TOLERANCE = 30.0
"""How far one item's score from an LLM judge asked again may be from the claimed one (the
sample's mean is held to ``reverify_score_tolerance``): a judge asked twice differs by a few
points, an invented verdict by more."""
ACTOR = "reverify"

Verdict = Literal["verified", "disputed", "unverifiable"]


@dataclass(frozen=True)
class Replay:
    """One replay's outcome: ``reasons`` say what differs (disputed) or why the replay could
    not be made (unverifiable; ``retry`` when for the hub's own reasons, which another
    attempt may not meet); ``compared`` rows hold each compared item's claimed and replayed
    figures; ``clamped``, the run's settings the hub's limits lowered."""

    kind: Literal["answers", "model"]
    status: Verdict
    reasons: list[str]
    compared: list[dict[str, Any]] = field(default_factory=list)
    retry: bool = False
    clamped: list[str] = field(default_factory=list)
    sample: dict[str, Any] | None = None
    """Which items were drawn, out of how many, how, and what such a sample catches
    (:func:`~._sampling.sample_record`)."""


@dataclass(frozen=True)
class Reverification:
    """Both replays and the verdict over them; ``retry_at``: when the hub tries again (a
    failure of its own, attempts left)."""

    answers: Replay
    model: Replay
    retry_at: datetime | None = None

    @property
    def status(self) -> Verdict:
        statuses = {self.answers.status, self.model.status}
        if "disputed" in statuses:
            return "disputed"
        return "verified" if statuses == {"verified"} else "unverifiable"

    @property
    def retry(self) -> bool:
        """Unverifiable only for the hub's own reasons: another attempt may verify it."""
        return self.status == "unverifiable" and all(
            replay.retry for replay in (self.answers, self.model)
            if replay.status == "unverifiable")

    @property
    def reasons(self) -> list[str]:
        return [f"{replay.kind}: {reason}" for replay in (self.answers, self.model)
                for reason in replay.reasons]

    def describe(self) -> str:
        """One paragraph for the submission's history."""
        parts = []
        for replay in (self.answers, self.model):
            what = {"answers": "its answers graded again", "model": "its model asked again"}
            drawn = f"; {describe_sample(replay.sample)}" if replay.sample \
                and replay.sample["size"] < replay.sample["population"] else ""
            head = f"{what[replay.kind]} ({len(replay.compared)} items{drawn}): {replay.status}"
            notes = replay.reasons[:8] + ([f"within this hub's limits: {', '.join(replay.clamped)}"]
                                          if replay.clamped else [])
            parts.append(head + (": " + "; ".join(notes) if notes else ""))
        return " | ".join(parts)


def reverify(document: dict[str, Any], config: HubConfig, *, sample: int | None = None,
             draw: SampleDraw | None = None, workdir: Path | None = None) -> Reverification:
    """Replay ``document`` (a submitted results JSON) both ways. The answers replay grades
    ``sample`` items (default ``config.replay_max_items``), the model replay
    ``config.reverify_sample``, both at most ``config.replay_max_items`` and drawn with
    ``draw`` (default: the system's randomness, so a submitter cannot tell)."""
    draw = draw or sample_draw(None, None)
    with tempfile.TemporaryDirectory(prefix="r2r-reverify-", dir=workdir) as directory:
        base = Path(directory)
        (base / "answers").mkdir()
        (base / "model").mkdir()
        answers = _replay_answers(document, base / "answers", config, sample, draw)
        model = _replay_model(document, base / "model", config, draw)
    return Reverification(answers, model)


def _refused(kind: Literal["answers", "model"], exc: ReplayRefused) -> Replay:
    return Replay(kind, "disputed", [f"its settings cannot be replayed: {exc}"])


def _replay_answers(document: dict[str, Any], directory: Path, config: HubConfig,
                    sample: int | None, draw: SampleDraw) -> Replay:
    run, items = document["run"], document["items"]
    samples, results = directory / "samples.jsonl", directory / "replay.json"
    reason = why_not_replayable(run, config) or why_not_judged(run, config,
                                                               resolve=litellm_provider)
    if reason is not None:
        return Replay("answers", "unverifiable", [reason])
    try:
        options = replay_options(run, f"r2r/samples:{samples}", results, config, judged=True)
    except ReplayRefused as exc:
        return _refused("answers", exc)
    planned = _planned(options.settings)
    by_id = {item["item_id"]: item for item in items}
    reasons = []
    missing = [item_id for item_id in planned if item_id not in by_id]
    if missing:
        reasons.append(f"the run left out {len(missing)} item(s) its seed draws: "
                       f"{', '.join(missing[:5])}")
    reasons += [f"{item['item_id']}: the seed does not draw this requirement"
                for item in items if item["item_id"] not in planned][:20]
    # Every item the plan holds gets a line, in the plan's order: a task's samples in turn, an
    # item the run left out an empty answer (the samples file must cover the plan). An answer
    # cut by the token limit is replayed as cut: truncated again, not a format error.
    lines = []
    for item_id, task_id in planned.items():
        item = by_id.get(item_id)
        lines.append({"task_id": task_id, "completion": item["response"] if item else "",
                      "finish_reason": item.get("finish_reason") if item else None})
    samples.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    candidates = [by_id[item_id] for item_id in planned
                  if item_id in by_id and selectable(item_id)]
    count = min(config.replay_max_items if sample is None else sample, config.replay_max_items)
    chosen = draw_sample(candidates, count, draw.rng)
    record = sample_record(len(candidates), [item["item_id"] for item in chosen], draw.source)
    if not chosen:
        return Replay("answers", "disputed" if reasons else "unverifiable",
                      reasons or ["no item of the run can be graded again"], sample=record)
    replayed = run_replay(options.arguments, directory, results, timeout_s=config.replay_timeout_s,
                          select=[item["item_id"] for item in chosen])
    if isinstance(replayed, str):
        return Replay("answers", "unverifiable", [replayed], retry=True, sample=record)
    static = _static_judged(run)
    rows = []
    for item in chosen:
        again = replayed.get(item["item_id"])
        reasons += _differences(item, again, compare_scores=static)
        if again is not None:
            rows.append(_row(item, again))
    judged = [(item, replayed[item["item_id"]]) for item in chosen
              if item["item_id"] in replayed and item.get("judges")]
    judges = llm_judges(run.get("judges") or [])
    verdict, found = _compare_judges(judged, judges, config) if judges else ("verified", [])
    reasons += found
    if verdict == "unverifiable" and not reasons:
        return Replay("answers", "unverifiable", found, rows, retry=True,
                      clamped=options.clamped, sample=record)
    return Replay("answers", "disputed" if reasons else "verified", reasons, rows,
                  clamped=options.clamped, sample=record)


def _compare_judges(judged: list[tuple[dict[str, Any], dict[str, Any]]], judges: list[str],
                    config: HubConfig) -> tuple[Verdict, list[str]]:
    """Each LLM judge's verdicts asked again on the same answers: its mean overall score
    over the sample within ``reverify_score_tolerance`` of the claimed mean, and each item's
    within :data:`JUDGE_ITEM_TOLERANCE`; the static judge's item by item within
    :data:`SCORE_TOLERANCE`. Unverifiable when a judge gave the hub no verdict at all."""
    reasons: list[str] = []
    for judge in [STATIC_JUDGE, *judges]:
        pairs = []
        for item, again in judged:
            claimed, replayed = _overall(item, judge), _overall(again, judge)
            if claimed is not None and replayed is not None:
                pairs.append((item["item_id"], claimed, replayed))
        if judge == STATIC_JUDGE:
            reasons += [f"{name}: {judge} scored {claimed:.1f}, the replay gives {replayed:.1f}"
                        for name, claimed, replayed in pairs
                        if abs(claimed - replayed) > SCORE_TOLERANCE]
            continue
        if judged and not pairs:
            return "unverifiable", [(f"{judge} gave no verdict on the hub for the "
                                     f"{len(judged)} judged items of the sample")]
        if not pairs:
            continue
        claimed_mean = fmean(claimed for _, claimed, _ in pairs)
        replayed_mean = fmean(replayed for _, _, replayed in pairs)
        if abs(claimed_mean - replayed_mean) > config.reverify_score_tolerance:
            reasons.append(f"{judge}'s mean score over {len(pairs)} items: claimed "
                           f"{claimed_mean:.1f}, asked again {replayed_mean:.1f} (tolerance "
                           f"{config.reverify_score_tolerance})")
        reasons += [f"{name}: {judge} scored {claimed:.1f}, asked again {replayed:.1f}"
                    for name, claimed, replayed in pairs
                    if abs(claimed - replayed) > JUDGE_ITEM_TOLERANCE][:5]
    return ("disputed" if reasons else "verified"), reasons


def _overall(item: dict[str, Any], judge: str) -> float | None:
    """``judge``'s overall score of ``item`` (None when it gave none)."""
    verdict = next((v for v in item.get("judges") or [] if v.get("judge") == judge), None)
    overall = verdict.get("overall") if verdict else None
    return float(overall) if isinstance(overall, int | float) else None


def _replay_model(document: dict[str, Any], directory: Path, config: HubConfig,
                  draw: SampleDraw) -> Replay:
    run, items = document["run"], document["items"]
    model = str(run["model"])
    reason = why_not_called(model, config, resolve=litellm_provider) \
        or why_not_replayable(run, config)
    if reason is not None:
        return Replay("model", "unverifiable", [reason])
    if config.reverify_sample < 1:
        return Replay("model", "unverifiable", ["this hub asks no model (R2R_HUB_REVERIFY_SAMPLE=0)"])
    results = directory / "replay.json"
    try:
        options = replay_options(run, model, results, config, ask_model=True)
    except ReplayRefused as exc:
        return _refused("model", exc)
    candidates = [item for item in items
                  if item["status"] not in INFRA_STATUSES and selectable(item["item_id"])]
    if not candidates:
        return Replay("model", "unverifiable", ["no item of the run can be asked again"])
    count = min(config.reverify_sample, config.replay_max_items)
    chosen = draw_sample(candidates, count, draw.rng)
    record = sample_record(len(candidates), [item["item_id"] for item in chosen], draw.source)
    replayed = run_replay(options.arguments, directory, results, timeout_s=config.replay_timeout_s,
                          select=[item["item_id"] for item in chosen])
    if isinstance(replayed, str):
        return Replay("model", "unverifiable", [replayed], retry=True, sample=record)
    rows, failed = [], Counter[str]()
    for item in chosen:
        again = replayed.get(item["item_id"])
        if again is None:  # the answers replay says whether the seed draws it
            failed["not replayed"] += 1
            continue
        if again["status"] in INFRA_STATUSES:
            # The provider's own words stay in the hub's log: an error body is not published.
            log.warning("re-verification: %s of %s: %s", item["item_id"], model,
                        str(again.get("reason") or again["status"])[:500])
            failed[again["status"]] += 1
            continue
        if not _same_requirement(item, again):
            return Replay("model", "disputed", [
                f"{item['item_id']}: the requirement differs from the one the seed draws"],
                clamped=options.clamped, sample=record)
        rows.append(_row(item, again))
    if not rows:
        what = ", ".join(f"{count} {status}" for status, count in sorted(failed.items()))
        reason = (f"no answer of {model} to compare: its {len(chosen)} calls failed on the "
                  f"hub ({what or 'none made'})")
        return Replay("model", "unverifiable", [reason], retry=True, clamped=options.clamped,
                      sample=record)
    verdict, reasons = _compare_sample(rows, config, static=_static_judged(run))
    return Replay("model", verdict, reasons, rows, clamped=options.clamped, sample=record)


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


def _planned(settings: Settings) -> dict[str, str]:
    """The items the replay's plan holds for the run's seed, sample and samples per task (the
    engine's own draw): their task ids by item id, in the plan's order."""
    assert settings.seed is not None  # replay_options gives the run's seed
    dynamic = DynamicOptions(rounds=settings.rounds, complexities=settings.complexity,
                             skills=settings.skills, domains=settings.domains)
    tasks = list(load_suite(str(settings.suite), seed=settings.seed, dynamic=dynamic))
    plan = build_plan(tasks, model=settings.model.text, suite=str(settings.suite),
                      seed=settings.seed, sample=settings.sample,
                      samples=settings.samples_per_task)
    return {item_id: task.task_id for item_id, task in planned_tasks(plan, tasks).items()}


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
                        sample: int | None = None) -> Reverification:
    """Re-verify a kept submission and record the outcome in its history, and both replays'
    compared items and samples with the submission. The samples are drawn from the hub's
    secret and the submission's digest (:func:`~._sampling.sample_draw`). A replay that
    failed for the hub's own reasons (or crashed) is tried again after a backoff while
    attempts are left: nothing but the attempt is recorded then."""
    submission = kept_submission(session, submission_id)
    digest = (submission.receipt or {}).get("submission_sha256") or submission_digest(
        {"nonce": submission.nonce, "results": submission.document,
         "evidence": submission.evidence})
    draw = sample_draw(hub_secret(config.key_path), digest)
    try:
        outcome = reverify(submission.document, config, sample=sample, draw=draw)
    except Exception as exc:  # a fault of the hub's (its sandbox, its disk): tried again
        log.exception("re-verifying submission %s failed", submission_id)
        failed = Replay("answers", "unverifiable",
                        [f"the replay failed on the hub ({type(exc).__name__})"], retry=True)
        outcome = Reverification(failed, replace(failed, kind="model"))
    attempts = submission.reverify_attempts + 1
    submission.reverify_attempts = attempts
    replays = [{"kind": replay.kind, "status": replay.status, "reasons": replay.reasons,
                "items": replay.compared, "sample": replay.sample}
               for replay in (outcome.answers, outcome.model)]
    if outcome.retry and attempts < config.reverify_attempts:
        retry_at = now() + timedelta(seconds=config.reverify_backoff_s * 2 ** (attempts - 1))
        submission.reverify_after = retry_at
        submission.reverification = {
            "status": "retrying", "attempts": attempts, "replays": replays,
            "retry_at": retry_at.isoformat(timespec="seconds")}
        session.commit()
        return replace(outcome, retry_at=retry_at)
    reason = outcome.describe()
    if outcome.retry:
        reason = f"not re-verified after {attempts} attempt(s): {reason}"
    record_status(session, submission, _new_status(session, submission, outcome.status),
                  reason, ACTOR)
    submission.reverify_after = None
    submission.reverification = {"status": outcome.status, "attempts": attempts,
                                 "replays": replays}
    session.commit()
    return outcome


def _new_status(session: Session, submission: Submission, verdict: Verdict) -> str:
    """A verified run is ranked, including one the hub's statistical checks flagged (the
    replay answers them), but not one too small to rank, one a user reported (an admin
    decides) or one an admin removed; a disputed one leaves the ranking; an unverifiable
    ``accepted`` one too (``unverified``), while one verified before stays verified and a
    flagged one waits for an admin."""
    if submission.status == "removed":
        return submission.status
    if verdict == "unverifiable":
        return UNVERIFIED if submission.status == RANKED else submission.status
    if verdict == "disputed":
        return "disputed"
    if submission.status in (*RANKED_STATUSES, UNVERIFIED):
        return "verified"
    reported = session.scalar(select(Flag.id).where(Flag.submission_id == submission.id,
                                                    Flag.resolution.is_(None)))
    answered = submission.status == "flagged" and reported is None \
        and submission.items >= MIN_RANKED_ITEMS
    return "verified" if answered else submission.status


def pending_reverification(session: Session, moment: datetime | None = None) -> list[int]:
    """Kept submissions (accepted or flagged) the hub has not re-verified yet and whose
    backoff (after a failure of the hub's) is over at ``moment`` (default: now), oldest
    first."""
    done = exists().where(StatusChange.submission_id == Submission.id,
                          StatusChange.actor == ACTOR)
    moment = moment or now()
    waiting = session.execute(select(Submission.id, Submission.reverify_after).where(
        Submission.status.in_((*RANKED_STATUSES, "flagged")), ~done)
        .order_by(Submission.received_at, Submission.id))
    return [row_id for row_id, after in waiting if after is None or aware(after) <= moment]
