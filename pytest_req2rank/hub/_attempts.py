"""Attempts: every nonce the hub issued is one run of the model it was fetched for, submitted
or not. Shown per model and per user, so a user who ran many times and submitted the best is
seen doing it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from sqlalchemy import and_, case, func, select
from sqlalchemy.orm import Session

from ._database import now
from ._tables import Nonce, User

Counts = dict[str, int]
"""``attempts`` (nonces issued), ``submitted`` (used by a kept submission), ``open`` (may
still be submitted) and ``abandoned`` (expired or replaced by newer ones, never submitted)."""


def _counts(session: Session, models: Iterable[str]) -> list[tuple[str, int, Counts]]:
    """Per model and user: their attempts' counts."""
    wanted = list(models)
    if not wanted:
        return []
    moment = now()
    still_open = case((and_(Nonce.used_at.is_(None), Nonce.revoked_at.is_(None),
                            Nonce.expires_at > moment), 1), else_=0)
    rows = session.execute(
        select(Nonce.model, Nonce.user_id, func.count(Nonce.id), func.count(Nonce.used_at),
               func.sum(still_open))
        .where(Nonce.model.in_(wanted)).group_by(Nonce.model, Nonce.user_id))
    found = []
    for model, user_id, attempts, submitted, open_ in rows:
        counts = {"attempts": attempts, "submitted": submitted, "open": int(open_ or 0)}
        counts["abandoned"] = attempts - submitted - counts["open"]
        found.append((str(model), int(user_id), counts))
    return found


def model_attempts(session: Session, models: Iterable[str]) -> dict[str, Counts]:
    """Per model, its attempts over every user."""
    totals: dict[str, Counts] = defaultdict(
        lambda: {"attempts": 0, "submitted": 0, "open": 0, "abandoned": 0})
    for model, _, counts in _counts(session, models):
        for key, value in counts.items():
            totals[model][key] += value
    return dict(totals)


def user_attempts(session: Session, model: str) -> list[dict[str, Any]]:
    """The users who fetched nonces for ``model``, each with their attempts' counts, the most
    abandoned first."""
    rows = _counts(session, [model])
    names = {user_id: name for user_id, name in session.execute(select(User.id, User.name).where(
        User.id.in_([user_id for _, user_id, _ in rows])))} if rows else {}
    found = [{"user": names.get(user_id), **counts} for _, user_id, counts in rows]
    return sorted(found, key=lambda row: (-row["abandoned"], -row["attempts"],
                                          str(row["user"])))
