"""Duplicates: a run whose answers are those of a submission kept before is refused.

Anyone can read a kept submission's evidence and re-chain it under a nonce of their own.
The answers are what a copy cannot change without changing what is graded: the hub keeps
each submission's distinct response hashes (as its evidence entries record them) and
refuses a new submission when most of its answers are one earlier submission's. The same
user's exact re-send (same run, nonce and chain) is answered before this check, as a retry.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..evidence import item_entries, sha256_hex
from ..models import INFRA_STATUSES
from ._database import aware
from ._errors import Refused
from ._tables import Submission, SubmissionAnswer, User

DUPLICATE_SHARE = 0.5
"""The share of a run's answers found in one earlier submission that makes it a copy of it."""
EMPTY_RESPONSE = sha256_hex("")
_CHUNK = 500
"""Hashes looked up per query (an IN list each database takes)."""


def answer_hashes(evidence: list[Any]) -> set[str]:
    """The distinct response hashes of a chain's item entries, leaving out empty answers and
    items lost to infrastructure (no answer of the model's)."""
    return {str(entry["response_sha256"]) for entry in item_entries(evidence)
            if entry.get("status") not in INFRA_STATUSES
            and entry.get("response_sha256") not in (None, EMPTY_RESPONSE)}


def check_duplicate(session: Session, user: User, nonce: str, evidence: list[Any]) -> None:
    """Refuse (409 ``duplicate``) a run most of whose answers one kept submission holds,
    other than one with the same ``nonce`` (a re-send of it, which intake answers or refuses
    by its nonce)."""
    hashes = sorted(answer_hashes(evidence))
    if not hashes:
        return
    shared: Counter[int] = Counter()
    for start in range(0, len(hashes), _CHUNK):
        rows = session.execute(
            select(SubmissionAnswer.submission_id, func.count(SubmissionAnswer.id))
            .join(Submission, Submission.id == SubmissionAnswer.submission_id)
            .where(SubmissionAnswer.response_sha256.in_(hashes[start:start + _CHUNK]),
                   Submission.nonce != nonce)
            .group_by(SubmissionAnswer.submission_id))
        for submission_id, count in rows:
            shared[submission_id] += count
    if not shared:
        return
    submission_id, count = max(shared.items(), key=lambda pair: (pair[1], -pair[0]))
    if count < DUPLICATE_SHARE * len(hashes):
        return
    original = session.get(Submission, submission_id)
    assert original is not None  # its answers are kept with it
    owner = session.get(User, original.user_id)
    whose = ("your" if original.user_id == user.id
             else f"{owner.name if owner else 'another user'}'s")
    raise Refused(409, "duplicate", f"{count} of the run's {len(hashes)} answers are those of "
                  f"{whose} submission {original.id} (run {original.run_id}, received "
                  f"{aware(original.received_at).isoformat(timespec='seconds')}); a run is "
                  "submitted once, by whoever ran it: submit a run of your own")


def keep_answers(session: Session, submission: Submission, evidence: list[Any]) -> None:
    """Keep ``submission``'s answers for later submissions' duplicate check."""
    session.add_all(SubmissionAnswer(submission_id=submission.id, response_sha256=value)
                    for value in sorted(answer_hashes(evidence)))
