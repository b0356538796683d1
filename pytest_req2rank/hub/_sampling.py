"""Which items a re-verification replays, and what such a sample can catch.

A big run is not replayed whole: the hub grades a sample of its items again. The sample is
drawn after the submission was accepted, from a random generator seeded with an HMAC of the
submission's digest (what its receipt signs) keyed with the hub's secret (its signing key):
the submitter cannot tell which items it will be before sending, and the operator can draw
the same sample again. A forger who edits ``k`` of ``N`` items escapes a sample of ``n``
with probability ``C(N-k, n) / C(N, n)``; the record of each sample says how likely it
was to catch 1, 5, 10 and 50 forged items, and how many it catches 19 times in 20.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

FORGED_COUNTS = (1, 5, 10, 50)
"""The numbers of forged items each sample's record gives its detection probability for."""
CONFIDENCE = 0.95


@dataclass(frozen=True)
class SampleDraw:
    """Where a re-verification's samples come from: ``rng`` and how it was seeded."""

    rng: random.Random
    source: str


def hub_secret(key_path: Path) -> bytes | None:
    """The hub's secret (its signing key's file), or None when this process cannot read it
    (a ``reverify`` command run without the hub's directory)."""
    try:
        return key_path.read_bytes()
    except OSError:
        return None


def sample_draw(secret: bytes | None, digest: str | None) -> SampleDraw:
    """The generator for a submission of ``digest`` (hex SHA-256): seeded with the HMAC of
    the digest under ``secret``; without either, the system's randomness (unpredictable
    too, but not drawn again the same)."""
    if secret is None or not digest:
        return SampleDraw(random.SystemRandom(), "the system's randomness")
    mac = hmac.new(secret, b"r2r-reverify-sample\x00" + digest.encode("ascii"), hashlib.sha256)
    return SampleDraw(random.Random(int.from_bytes(mac.digest(), "big")),
                      f"the hub's secret and the submission's digest {digest[:16]}")


def draw_sample(population: Sequence[T], size: int, rng: random.Random) -> list[T]:
    """``size`` members of ``population`` (all when it has no more), in its order."""
    if size >= len(population):
        return list(population)
    chosen = set(rng.sample(range(len(population)), size))
    return [member for index, member in enumerate(population) if index in chosen]


def detection(population: int, sampled: int, forged: int) -> float:
    """The probability that ``sampled`` items drawn from ``population`` hold at least one of
    ``forged`` ones: ``1 - C(N-k, n) / C(N, n)``."""
    if forged <= 0 or sampled <= 0:
        return 0.0
    if forged > population - sampled:
        return 1.0
    escape = 1.0
    for i in range(sampled):
        escape *= (population - forged - i) / (population - i)
    return 1.0 - escape


def forged_caught(population: int, sampled: int, confidence: float = CONFIDENCE) -> int:
    """The fewest forged items a sample of ``sampled`` catches with ``confidence``."""
    low, high = 1, max(1, population)
    while low < high:
        middle = (low + high) // 2
        if detection(population, sampled, middle) >= confidence:
            high = middle
        else:
            low = middle + 1
    return low


def sample_record(population: int, items: Sequence[str], source: str) -> dict[str, Any]:
    """What a replay keeps of its sample: its size out of how many, the item ids, how it was
    drawn and what it catches."""
    sampled = len(items)
    return {
        "population": population, "size": sampled, "items": list(items), "drawn_from": source,
        "detection": {str(k): round(detection(population, sampled, k), 4)
                      for k in FORGED_COUNTS if k <= population},
        "caught_at_95": forged_caught(population, sampled),
    }


def describe_sample(record: dict[str, Any]) -> str:
    """One phrase for a submission's history: the sample of a run replayed in part."""
    population, size = record["population"], record["size"]
    odds = ", ".join(f"{k}: {100 * p:.0f}%" for k, p in record["detection"].items())
    return (f"{size} of {population} items drawn from {record['drawn_from']} (chance to catch "
            f"k forged items, {odds}; 95% from {record['caught_at_95']})")
