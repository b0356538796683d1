"""The re-verification's sample: drawn from the hub's secret and the submission's digest,
and what a sample of that size catches."""

from __future__ import annotations

import math

from pytest_req2rank.hub._sampling import (
    detection,
    draw_sample,
    forged_caught,
    sample_draw,
    sample_record,
)

DIGEST = "ab" * 32


def test_the_chance_to_catch_forged_items_is_the_hypergeometric_one() -> None:
    for population, sampled, forged in ((5000, 100, 1), (5000, 100, 50), (40, 10, 3)):
        exact = 1 - math.comb(population - forged, sampled) / math.comb(population, sampled)
        assert math.isclose(detection(population, sampled, forged), exact, rel_tol=1e-9)
    assert math.isclose(detection(5000, 100, 1), 0.02)
    assert detection(100, 100, 1) == 1.0 and detection(100, 60, 41) == 1.0
    assert detection(100, 10, 0) == 0.0
    caught = forged_caught(5000, 100)
    assert detection(5000, 100, caught) >= 0.95 > detection(5000, 100, caught - 1)
    assert 140 <= caught <= 150


def test_the_sample_is_the_same_for_the_same_secret_and_digest_and_unforeseeable_without() -> None:
    items = [f"dynamic/R{n}" for n in range(5000)]
    first = draw_sample(items, 100, sample_draw(b"hub secret", DIGEST).rng)
    assert first == draw_sample(items, 100, sample_draw(b"hub secret", DIGEST).rng)
    assert len(set(first)) == 100 and first == sorted(first, key=items.index)
    assert first != draw_sample(items, 100, sample_draw(b"other secret", DIGEST).rng)
    assert first != draw_sample(items, 100, sample_draw(b"hub secret", "cd" * 32).rng)
    assert sample_draw(None, DIGEST).source == "the system's randomness"
    assert sample_draw(b"s", DIGEST).source == f"the hub's secret and the submission's digest " \
        f"{DIGEST[:16]}"
    assert draw_sample(items[:30], 100, sample_draw(None, None).rng) == items[:30]


def test_a_sample_record_says_what_it_catches() -> None:
    record = sample_record(5000, [f"dynamic/R{n}" for n in range(100)], "the hub's secret")
    assert record["population"] == 5000 and record["size"] == 100
    assert record["detection"] == {"1": 0.02, "5": 0.0961, "10": 0.1831, "50": 0.6377}
    assert record["caught_at_95"] == forged_caught(5000, 100)
