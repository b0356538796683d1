"""Pruning what the hub no longer needs, so no table grows without bound: nonces never used
and expired, tokens revoked or expired, sign-ins ended or expired (each kept
``retention_s`` after, for the record), sign-in states expired. A nonce fetched for a model
is an attempt the leaderboard counts (``_attempts``): an abandoned one keeps its row (user,
model, times) and loses only its declared settings, the bulk of it; the daily nonce limit
bounds how many there are. The served hub prunes every
:data:`PRUNE_EVERY_S`; ``req2rank-hub prune`` does it at once."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, Delete, Update, delete, null, or_, update
from sqlalchemy.orm import Session

from ._config import HubConfig
from ._database import now
from ._tables import Nonce, OAuthState, Token, WebSession

PRUNE_EVERY_S = 3600


@dataclass(frozen=True)
class Pruned:
    """How many rows of each kind were deleted."""

    nonces: int
    attempts: int
    """Abandoned attempts whose declared settings were dropped (their rows stay)."""
    tokens: int
    sessions: int
    states: int


def prune(session: Session, config: HubConfig) -> Pruned:
    """Delete what expired, was revoked or ended more than ``config.retention_s`` ago (a
    used nonce stays: it is its submission's; an abandoned attempt stays without its
    declared settings)."""
    moment = now()
    before = moment - timedelta(seconds=config.retention_s)

    def deleted(statement: Delete | Update) -> int:
        done = session.execute(statement.execution_options(synchronize_session=False))
        return int(cast(CursorResult[Any], done).rowcount or 0)

    unlimited = Token.expires_at.is_(None) & (
        Token.created_at < before - timedelta(seconds=config.token_ttl_s))
    abandoned = (Nonce.used_at.is_(None), Nonce.expires_at < before)
    pruned = Pruned(
        nonces=deleted(delete(Nonce).where(*abandoned, Nonce.model.is_(None))),
        attempts=deleted(update(Nonce).where(*abandoned, Nonce.model.is_not(None),
                                             Nonce.declared.is_not(None))
                         .values(declared=null())),
        tokens=deleted(delete(Token).where(or_(Token.revoked_at < before,
                                               Token.expires_at < before, unlimited))),
        sessions=deleted(delete(WebSession).where(or_(WebSession.ended_at < before,
                                                      WebSession.expires_at < before))),
        states=deleted(delete(OAuthState).where(OAuthState.expires_at < moment)),
    )
    session.commit()
    return pruned
