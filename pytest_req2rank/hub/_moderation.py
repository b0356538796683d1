"""Reports by signed-in users and their resolution by an admin, every step logged. One open
report per user and submission, a few reports per user a day; a ranked submission leaves
the ranking when ``reports_to_hold`` users have a report on it open, and a dismissal that
leaves fewer open gives it back the status it had."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ._config import HubConfig
from ._database import now, utc_day
from ._errors import Refused
from ._submissions import RANKED, RANKED_STATUSES, kept_submission, record_status
from ._tables import AdminAction, Flag, Submission, User

Resolution = str  # "uphold" (the submission is removed) or "dismiss"

MAX_NOTE_CHARS = 2000
"""The longest note an admin's resolution or review takes (it is kept and published in the
submission's history)."""


def open_reports(session: Session, submission_id: int) -> int:
    """Reports on a submission no admin resolved yet (one per user at most)."""
    return session.scalar(select(func.count(Flag.id)).where(
        Flag.submission_id == submission_id, Flag.resolution.is_(None))) or 0


def flag_submission(session: Session, user: User, submission_id: int, reason: str,
                    config: HubConfig) -> Flag:
    """Report a submission; refused when ``user`` has one open on it already, or filed
    ``config.daily_reports`` today. With ``config.reports_to_hold`` open, a ranked
    submission leaves the ranking until an admin resolves them."""
    submission = kept_submission(session, submission_id)
    reason = reason.strip()
    if not reason:
        raise Refused(422, "invalid_flag", "reason: say what looks wrong with the submission")
    mine = session.scalar(select(Flag.id).where(Flag.submission_id == submission.id,
                                                Flag.user_id == user.id,
                                                Flag.resolution.is_(None)))
    if mine is not None:
        raise _reported_already(submission.id, mine)
    moment = now()
    day, reset = utc_day(moment)
    today = session.scalar(select(func.count(Flag.id)).where(
        Flag.user_id == user.id, Flag.created_at >= day)) or 0
    if today >= config.daily_reports:
        raise Refused(429, "report_limit", f"{user.name} has filed {today} reports today "
                      f"(UTC), the most a day; report again after {reset}")
    flag = Flag(submission_id=submission.id, user_id=user.id, reason=reason[:2000],
                created_at=moment)
    session.add(flag)
    try:
        session.flush()
    except IntegrityError:  # the same user's report, sent twice at once
        session.rollback()
        raise _reported_already(submission.id, None) from None
    count = open_reports(session, submission.id)
    if count >= config.reports_to_hold and submission.status in RANKED_STATUSES:
        submission.held_status = submission.status
        record_status(session, submission, "flagged", f"{count} users' reports open, held "
                      f"until an admin resolves them; the latest by {user.name}: "
                      f"{reason[:200]}", user.name)
    session.commit()
    return flag


def _reported_already(submission_id: int, flag_id: int | None) -> Refused:
    which = f" (report {flag_id})" if flag_id is not None else ""
    return Refused(409, "already_reported", f"you have a report on submission {submission_id} "
                   f"open already{which}; an admin resolves it, then you can report again")


def _check_admin(admin: User, note: str) -> None:
    """Refused unless ``admin`` is one and ``note`` is within :data:`MAX_NOTE_CHARS`."""
    if not admin.is_admin:
        raise Refused(403, "not_admin", f"{admin.name} is not an admin of this hub")
    if len(note) > MAX_NOTE_CHARS:
        raise Refused(422, "invalid_note", f"note: {len(note)} characters, more than the "
                      f"{MAX_NOTE_CHARS} a resolution keeps; say it in fewer")


def resolve_flag(session: Session, admin: User, flag_id: int, action: Resolution,
                 note: str, config: HubConfig) -> Submission:
    """``uphold`` removes the submission; ``dismiss`` gives a submission the reports held
    back the status it had (``verified`` if a replay verified it meanwhile) once fewer than
    ``config.reports_to_hold`` reports on it are open."""
    _check_admin(admin, note)
    flag = session.get(Flag, flag_id)
    if flag is None:
        raise Refused(404, "not_found", f"no report {flag_id}")
    if action not in ("uphold", "dismiss"):
        raise Refused(422, "invalid_action", f"action {action!r}: use uphold or dismiss")
    if flag.resolution is not None:
        raise Refused(409, "already_resolved", f"report {flag_id} was already resolved "
                      f"({flag.resolution})")
    submission = session.get(Submission, flag.submission_id)
    assert submission is not None  # a foreign key
    flag.resolution, flag.resolved_at = action, now()
    session.add(AdminAction(admin_id=admin.id, action=f"{action} report", target=f"flag {flag_id}",
                            note=note, at=now()))
    if action == "uphold":
        submission.held_status = None
        record_status(session, submission, "removed", f"report {flag_id} upheld: {note}",
                      admin.name)
    else:
        session.flush()
        still_open = open_reports(session, submission.id)
        if submission.status == "flagged" and submission.held_status is not None \
                and still_open < config.reports_to_hold:
            restored = submission.held_status
            if restored == RANKED and (submission.reverification or {}).get("status") == \
                    "verified":
                restored = "verified"
            submission.held_status = None
            record_status(session, submission, restored, f"report {flag_id} dismissed: "
                          f"{note} (reports open: {still_open})", admin.name)
    session.commit()
    return submission


def review_submission(session: Session, admin: User, submission_id: int, action: str,
                      note: str) -> Submission:
    """An admin's verdict on a submission itself (one the hub's checks flagged): ``accept``
    ranks it, ``remove`` takes it out."""
    _check_admin(admin, note)
    submission = kept_submission(session, submission_id)
    statuses = {"accept": RANKED, "remove": "removed"}
    if action not in statuses:
        raise Refused(422, "invalid_action", f"action {action!r}: use accept or remove")
    session.add(AdminAction(admin_id=admin.id, action=action, target=f"submission {submission_id}",
                            note=note, at=now()))
    submission.held_status = None
    record_status(session, submission, statuses[action], f"admin review: {note}", admin.name)
    session.commit()
    return submission
