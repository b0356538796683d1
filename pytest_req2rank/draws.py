"""The two random choices a run makes once, before anything is planned: its seed and its id;
the seeds derived from the run seed; and the seed of a submitted run, derived from the hub's
nonce.

Kept free of heavy imports: an xdist controller of a session that has not asked for a
benchmark yet draws them for its workers (see ``plugin._activation``).
"""

from __future__ import annotations

import hashlib
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


def sample_seed(seed: int | None, sample: int) -> int | None:
    """The seed of a task's sample ``sample`` (0-based) in a run seeded ``seed``: the run seed
    itself for sample 0 (a run asking once per task is unchanged), else drawn from the run seed
    and the index, so the same run seed gives the same seeds and the samples differ."""
    if seed is None or sample == 0:
        return seed
    digest = hashlib.sha256(f"r2r-sample:{seed}:{sample}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 2**31


def nonce_seed(nonce: str) -> int:
    """The seed of a run submitted with ``nonce``: drawn from the nonce the hub issued, so the
    hub, not the submitter, picks the run's requirements (the hub recomputes it)."""
    digest = hashlib.sha256(f"r2r-nonce-seed:{nonce}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 2**31


def new_draw() -> Draw:
    return Draw(new_seed(), new_run_id())
