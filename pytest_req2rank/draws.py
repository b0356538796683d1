"""The two random choices a run makes once, before anything is planned: its seed and its id.

Kept free of heavy imports: an xdist controller of a session that has not asked for a
benchmark yet draws them for its workers (see ``plugin._activation``).
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import NamedTuple


class Draw(NamedTuple):
    """A run's seed (unless the settings fix one) and its id."""

    seed: int
    run_id: str


def new_run_id(now: datetime | None = None) -> str:
    """A sortable, unique run id such as ``20261122-101500-3f9a1c``."""
    now = now or datetime.now(UTC)
    return f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def new_seed() -> int:
    return secrets.randbelow(2**31)


def new_draw() -> Draw:
    return Draw(new_seed(), new_run_id())
