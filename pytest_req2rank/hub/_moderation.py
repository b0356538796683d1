"""Reports by signed-in users and their resolution by an admin, every step logged."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from ._database import now
from ._errors import Refused
from ._submissions import RANKED, RANKED_STATUSES, kept_submission, record_status
from ._tables import AdminAction, Flag, Submission, User

Resolution = str  # "uphold" (the submission is removed) or "dismiss"


def flag_submission(session: Session, user: User, submission_id: int, reason: str) -> Flag:
    """Report a submission: it leaves the ranking until an admin resolves the report."""
    submission = kept_submission(session, submission_id)
    reason = reason.strip()
    if not reason:
        raise Refused(422, "invalid_flag", "reason: say what looks wrong with the submission")
    flag = Flag(submission_id=submission.id, user_id=user.id, reason=reason[:2000],
                created_at=now())
    session.add(flag)
    if submission.status in RANKED_STATUSES:
        record_status(session, submission, "flagged", f"reported by {user.name}: {reason[:200]}",
                      user.name)
    session.commit()
    return flag


def resolve_flag(session: Session, admin: User, flag_id: int, action: Resolution,
                 note: str) -> Submission:
    """``uphold`` removes the submission; ``dismiss`` ranks it again once no report on it
    is open and the hub's own checks raised nothing."""
    if not admin.is_admin:
        raise Refused(403, "not_admin", f"{admin.name} is not an admin of this hub")
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
        record_status(session, submission, "removed", f"report {flag_id} upheld: {note}",
                      admin.name)
    else:
        still_open = session.scalar(select(Flag).where(
            Flag.submission_id == submission.id, Flag.resolution.is_(None), Flag.id != flag.id))
        if still_open is None and submission.status == "flagged" \
                and not submission.flags_reasons:
            record_status(session, submission, RANKED, f"report {flag_id} dismissed: {note}",
                          admin.name)
    session.commit()
    return submission


def review_submission(session: Session, admin: User, submission_id: int, action: str,
                      note: str) -> Submission:
    """An admin's verdict on a submission itself (one the hub's checks flagged): ``accept``
    ranks it, ``remove`` takes it out."""
    if not admin.is_admin:
        raise Refused(403, "not_admin", f"{admin.name} is not an admin of this hub")
    submission = kept_submission(session, submission_id)
    statuses = {"accept": RANKED, "remove": "removed"}
    if action not in statuses:
        raise Refused(422, "invalid_action", f"action {action!r}: use accept or remove")
    session.add(AdminAction(admin_id=admin.id, action=action, target=f"submission {submission_id}",
                            note=note, at=now()))
    record_status(session, submission, statuses[action], f"admin review: {note}", admin.name)
    session.commit()
    return submission
