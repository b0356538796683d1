"""Nonces: issued to a signed-in user for one run (an attempt), single use, expiring, a few open
at a time."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..evidence import canonical_json
from ..plan import DECLARED_SETTINGS
from ._config import HubConfig
from ._database import aware, now, utc_day
from ._errors import Refused
from ._tables import Nonce, User

MAX_DECLARED_BYTES = 8192
"""The most a run's declared settings take (canonical JSON): a nonce keeps them."""


def issue_nonce(session: Session, user: User, config: HubConfig, model: str,
                declared: dict[str, Any]) -> Nonce:
    """A new nonce for ``user``'s run of ``model`` with the ``declared`` suite and settings
    (an attempt); beyond ``max_open_nonces`` open ones, the oldest is revoked."""
    unknown = sorted(declared.keys() - {"suite", *DECLARED_SETTINGS})
    if unknown:
        raise Refused(422, "invalid_request", f"settings: {unknown[0]!r} is not a declared "
                      "setting; send pytest_req2rank.plan.declared_settings(suite, settings)")
    if len(canonical_json(declared)) > MAX_DECLARED_BYTES:
        raise Refused(422, "invalid_request", f"settings: over {MAX_DECLARED_BYTES} bytes; "
                      "send only the declared settings")
    moment = now()
    open_nonces = list(session.scalars(
        select(Nonce).where(Nonce.user_id == user.id, Nonce.used_at.is_(None),
                            Nonce.revoked_at.is_(None), Nonce.expires_at > moment)
        .order_by(Nonce.issued_at, Nonce.id)))
    for old in open_nonces[: max(len(open_nonces) - config.max_open_nonces + 1, 0)]:
        old.revoked_at = moment
    nonce = Nonce(value=f"nonce-{int(moment.timestamp() * 1000)}-{secrets.token_hex(12)}",
                  user_id=user.id, issued_at=moment,
                  expires_at=moment + timedelta(seconds=config.nonce_ttl_s), model=model,
                  declared=declared)
    session.add(nonce)
    session.commit()
    return nonce


def usable_nonce(session: Session, user: User, value: str) -> Nonce:
    """The nonce ``value`` if ``user`` may submit with it now; else refused, saying why."""
    nonce = session.scalar(select(Nonce).where(Nonce.value == value))
    if nonce is None:
        raise Refused(400, "unknown_nonce", f"nonce {value!r} was not issued by this hub; "
                      "fetch one with POST /api/nonces before the run")
    if nonce.user_id != user.id:
        raise Refused(403, "foreign_nonce", f"nonce {value!r} was issued to another user; "
                      "a run is submitted with a nonce of your own")
    if nonce.used_at is not None:
        raise Refused(409, "nonce_used", f"nonce {value!r} was already used by a submission "
                      "(a replay); each run needs a fresh nonce")
    if nonce.revoked_at is not None:
        raise Refused(409, "nonce_revoked", f"nonce {value!r} was replaced by newer ones (at "
                      "most a few are open per user); run again with a fresh nonce")
    if aware(nonce.expires_at) <= now():
        raise Refused(410, "nonce_expired", f"nonce {value!r} expired at "
                      f"{aware(nonce.expires_at).isoformat(timespec='seconds')}; "
                      "run again with a fresh nonce")
    return nonce


def check_nonce_quota(session: Session, user: User, config: HubConfig) -> None:
    """At most ``daily_nonces`` nonces per user per UTC day, by the hub's clock (each one is
    kept until it is pruned)."""
    day, reset = utc_day(now())
    issued = session.scalar(select(func.count(Nonce.id)).where(
        Nonce.user_id == user.id, Nonce.issued_at >= day)) or 0
    if issued >= config.daily_nonces:
        raise Refused(429, "nonce_limit", f"{user.name} has fetched {issued} nonces today "
                      f"(UTC), the most a day; fetch one again after {reset}")
