"""Taking a submission: the checks in order, then keeping it with its receipt and history."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from ..evidence import sha256_hex
from ._binding import check_bound
from ._breakdown import breakdown
from ._checks import (
    check_aggregates,
    check_consistency,
    check_evidence,
    check_isolation,
    check_panels,
    check_timeline,
    complexity_mix,
    parse_results,
    statistical_flags,
)
from ._config import HubConfig
from ._database import aware, now, utc_day
from ._duplicates import check_duplicate, keep_answers
from ._errors import Refused
from ._item_scores import requirement_scores
from ._model_policy import check_model_names
from ._nonces import usable_nonce
from ._receipts import Signer
from ._replay import why_unverified
from ._tables import Nonce, Refusal, StatusChange, Submission, User

RANKED = "accepted"
"""What a submission that passed every check is; ``flagged`` waits for review."""
RANKED_STATUSES = (RANKED, "verified")
"""The statuses the leaderboard ranks (``verified``: replayed by the hub and matched);
``flagged``, ``disputed``, ``unverified`` and ``removed`` are not ranked."""
UNVERIFIED = "unverified"
"""A kept run the hub cannot re-verify (known when it arrives, or after its replays kept
failing): shown in a table of its own, never ranked."""


def submit(session: Session, user: User, payload: Any, config: HubConfig,
           signer: Signer) -> tuple[Submission, bool]:
    """Check and keep a submission; returns it and whether it is new (False: a retry of one
    already kept, answered with the same receipt). Refuses with the first check that fails,
    and logs the refusal."""
    received_at = now()
    try:
        return _checked(session, user, payload, config, signer, received_at)
    except Refused as exc:
        session.rollback()
        if exc.code not in ("daily_limit", "refusal_limit"):
            session.add(Refusal(user_id=user.id, code=exc.code, message=exc.message[:2000],
                                at=received_at))
            session.commit()
        raise


def _checked(session: Session, user: User, payload: Any, config: HubConfig, signer: Signer,
             received_at: datetime) -> tuple[Submission, bool]:
    if not isinstance(payload, dict):
        raise Refused(422, "invalid_payload",
                      "expected a JSON object with nonce, results, evidence")
    nonce_value, data = payload.get("nonce"), payload.get("results")
    evidence = payload.get("evidence")
    if not isinstance(nonce_value, str):
        raise Refused(422, "invalid_payload", "nonce: expected the nonce the run was started with")
    run = data.get("run") if isinstance(data, dict) else None
    run_id = run.get("id") if isinstance(run, dict) else None  # the schema check refuses others
    head = evidence[-1].get("hash") if isinstance(evidence, list) and evidence \
        and isinstance(evidence[-1], dict) else None
    earlier = resent(session, user, nonce_value, run_id, head)
    if earlier is not None:
        return earlier, False
    try:
        check_daily_limit(session, user, received_at, config)
        nonce = usable_nonce(session, user, nonce_value)
    except Refused:
        # A request with the same run may have kept it since the look above.
        earlier = resent(session, user, nonce_value, run_id, head)
        if earlier is not None:
            return earlier, False
        raise
    document = parse_results(data)
    check_consistency(document)
    check_model_names(document.run.model, document.run.judges, config)
    check_isolation(document)
    check_evidence(evidence, document, nonce_value)
    assert isinstance(evidence, list) and isinstance(data, dict)  # refused otherwise
    check_nonce_entry(evidence[0], aware(nonce.issued_at))
    check_duplicate(session, user, nonce_value, evidence)
    check_bound(evidence, data, document, nonce)
    check_panels(document)
    check_aggregates(document)
    check_timeline(document, aware(nonce.issued_at), received_at, evidence, config)
    history = list(session.scalars(select(Submission.overall).where(
        Submission.model == document.run.model, Submission.status.in_(RANKED_STATUSES))))
    flags = statistical_flags(document, history, config)
    summary = document.summary
    assert summary.overall_score is not None  # check_aggregates refuses a run without one
    unverified = why_unverified(document.run.model_dump(mode="json"), config)
    status = UNVERIFIED if unverified else "flagged" if flags else RANKED
    hold_user(session, user)
    # Checked again under the hold: another thread or process may have kept a submission of
    # this user's, or one with this nonce, since the checks above read the database.
    earlier = resent(session, user, nonce_value, run_id, head)
    if earlier is not None:
        session.commit()  # ends the hold; the user's row was not changed
        return earlier, False
    check_daily_limit(session, user, received_at, config)
    submission = Submission(
        user_id=user.id, run_id=document.run.id, nonce=nonce_value, model=document.run.model,
        suite=document.run.suite, complexity=complexity_mix(document),
        overall=summary.overall_score, ci_low=summary.ci95.low if summary.ci95 else None,
        ci_high=summary.ci95.high if summary.ci95 else None, dimensions=summary.dimensions,
        agreement=summary.agreement, isolation=document.run.isolation or "",
        items=summary.items_total, head=evidence[-1]["hash"], status=status, flags_reasons=flags,
        received_at=received_at, document=data, evidence=evidence, receipt={},
        breakdown=breakdown(document), requirement_scores=requirement_scores(document, evidence),
    )
    nonce.used_at = received_at
    session.add(submission)
    session.flush()
    keep_answers(session, submission, evidence)
    submission.receipt = signer.sign({
        "submission_id": submission.id, "run_id": submission.run_id, "nonce": nonce_value,
        "head": submission.head, "model": submission.model, "overall": submission.overall,
        "status": status, "received_at": received_at.isoformat(timespec="milliseconds"),
        "user": user.name, "submission_sha256": submission_digest(payload),
    })
    record_status(session, submission, status, "; ".join(
        [*([f"the hub cannot replay it: {unverified}"] if unverified else []), *flags])
        or "all checks passed", "hub")
    session.commit()
    return submission, True


def resent(session: Session, user: User, nonce_value: str, run_id: object,
           head: object) -> Submission | None:
    """The kept submission that this one re-sends (``user``'s, with ``nonce_value``, the same
    run and the same chain head), answered again instead of checked; None while the nonce is
    unused (or not ``user``'s: the nonce checks say why); refused when the nonce was used by
    another run or other evidence."""
    # The nonce is marked used in the transaction that keeps its submission: read first, a
    # used nonce's submission is there to read.
    used_at = session.scalar(select(Nonce.used_at).where(Nonce.value == nonce_value,
                                                         Nonce.user_id == user.id))
    if used_at is None:
        return None
    kept = session.scalar(select(Submission).where(Submission.nonce == nonce_value,
                                                   Submission.user_id == user.id))
    if kept is not None and kept.run_id == run_id and kept.head == head:
        return kept
    if kept is not None and kept.run_id == run_id:
        raise Refused(409, "nonce_used", f"run {run_id} was already submitted with nonce "
                      f"{nonce_value!r}, with other evidence; each run needs a fresh nonce")
    raise Refused(409, "nonce_used", f"nonce {nonce_value!r} was already used by a submission "
                  "(a replay); each run needs a fresh nonce")


def submission_digest(payload: dict[str, Any]) -> str:
    """What a receipt signs of the submission: SHA-256 over the canonical JSON (RFC 8785) of
    the whole submitted document, ``{"nonce", "results", "evidence"}``."""
    return sha256_hex({key: payload.get(key) for key in ("nonce", "results", "evidence")})


def hold_user(session: Session, user: User) -> None:
    """Make ``user``'s other submissions wait until this session's transaction ends, in
    every thread and process of every hub on the database: an update of the user's row takes
    PostgreSQL's row lock, and SQLite's write lock."""
    session.execute(update(User).where(User.id == user.id).values(name=User.name)
                    .execution_options(synchronize_session=False))


def check_daily_limit(session: Session, user: User, moment: datetime, config: HubConfig) -> None:
    """At most ``daily_submissions`` kept and ``daily_refusals`` refused per user per UTC day,
    by the hub's receive time."""
    day, reset = utc_day(moment)
    refused = session.scalar(select(func.count(Refusal.id)).where(
        Refusal.user_id == user.id, Refusal.at >= day)) or 0
    if refused >= config.daily_refusals:
        raise Refused(429, "refusal_limit", f"{user.name} has had {refused} submissions refused "
                      f"today (UTC); the hub checks no more of theirs until {reset}")
    count = session.scalar(select(func.count(Submission.id)).where(
        Submission.user_id == user.id, Submission.received_at >= day)) or 0
    if count >= config.daily_submissions:
        raise Refused(429, "daily_limit", f"{user.name} has submitted {count} runs today (UTC), "
                      f"the most a day; submit again after {reset}")


def kept_submission(session: Session, submission_id: int) -> Submission:
    """The submission kept as ``submission_id``; refused with 404 when there is none."""
    found = session.get(Submission, submission_id)
    if found is None:
        raise Refused(404, "not_found", f"no submission {submission_id}")
    return found


def record_status(session: Session, submission: Submission, status: str, reason: str,
                  actor: str) -> None:
    submission.status = status
    session.add(StatusChange(submission_id=submission.id, status=status, reason=reason,
                             actor=actor, at=now()))


def check_nonce_entry(entry: dict[str, Any], issued_at: datetime) -> None:
    """The chain's first entry records the nonce's issue time as the hub gave it."""
    try:
        recorded = datetime.fromisoformat(str(entry.get("issued_at")))
        same = recorded.tzinfo is not None and abs((recorded - issued_at).total_seconds()) < 0.01
    except ValueError:
        same = False
    if not same:
        raise Refused(422, "evidence_mismatch", f"evidence entry 0: the nonce was issued at "
                      f"{issued_at.isoformat(timespec='milliseconds')}, the chain says "
                      f"{entry.get('issued_at')!r}")
