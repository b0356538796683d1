"""The power formula against a simulation of paired runs, and its edges."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pytest_req2rank.scoring import (
    detectable_difference,
    like_model_sd,
    paired_bootstrap_diff,
    paired_difference_sd,
    rounds_needed,
)


def test_the_textbook_constant() -> None:
    # (1.960 + 0.842) = 2.802: with sd 10 and 100 pairs, 2.8 points.
    assert detectable_difference(10.0, 100) == pytest.approx(2.8016, abs=1e-4)
    assert rounds_needed(2.8016, 10.0) == 100
    assert rounds_needed(50.0, 1.0) == 2  # one requirement shows no spread


def test_rounds_needed_inverts_the_detectable_difference() -> None:
    for n in (10, 37, 250):
        d = detectable_difference(30.0, n)
        assert rounds_needed(d * 1.0001, 30.0) <= n <= rounds_needed(d * 0.9999, 30.0)


def test_at_the_detectable_difference_a_paired_run_detects_it_80_percent_of_the_time() -> None:
    """Two models on 60 shared requirements whose true paired difference is the formula's
    detectable difference: the paired bootstrap CI95 excludes 0 in 80 % ± 6 % of 300 runs."""
    n, sd = 60, 25.0
    difference = detectable_difference(sd, n)
    rng = np.random.default_rng(31)
    detected = 0
    runs = 300
    for run in range(runs):
        base = rng.uniform(20, 80, size=n)
        other = base + difference + rng.normal(0, sd, size=n)
        keys = [f"r{i}" for i in range(n)]
        result = paired_bootstrap_diff(dict(zip(keys, base, strict=True)),
                                       dict(zip(keys, other, strict=True)),
                                       seed=run, n_resamples=500)
        detected += result.low > 0
    assert abs(detected / runs - 0.8) <= 0.06, detected / runs


def test_a_smaller_difference_is_detected_less_often() -> None:
    n, sd = 60, 25.0
    half = detectable_difference(sd, n) / 2
    rng = np.random.default_rng(5)
    runs = 200
    detected = sum(
        paired_bootstrap_diff({f"r{i}": 0.0 for i in range(n)},
                              {f"r{i}": float(v) for i, v in
                               enumerate(half + rng.normal(0, sd, size=n))},
                              seed=run, n_resamples=300).low > 0
        for run in range(runs))
    # power at half the detectable difference is about Phi(2.80/2 - 1.96) = 0.29
    assert 0.18 <= detected / runs <= 0.40


def test_standard_deviations_from_scores() -> None:
    one = {"a": [100.0, 100.0], "b": [0.0], "c": [50.0]}  # requirement means 100, 0, 50
    assert like_model_sd(one) == pytest.approx(math.sqrt(2) * 50.0)
    assert like_model_sd({"a": [10.0, 90.0]}) is None
    other = {"a": [90.0], "b": [10.0], "c": [50.0], "z": [0.0]}
    sd, shared = paired_difference_sd(one, other) or (None, None)
    assert shared == 3
    assert sd == pytest.approx(float(np.std([10.0, -10.0, 0.0], ddof=1)))
    assert paired_difference_sd({"a": [1.0]}, {"a": [2.0]}) is None


@pytest.mark.parametrize("call", [
    lambda: detectable_difference(10.0, 0),
    lambda: detectable_difference(-1.0, 10),
    lambda: detectable_difference(10.0, 10, alpha=0.0),
    lambda: detectable_difference(10.0, 10, power=1.0),
    lambda: rounds_needed(0.0, 10.0),
    lambda: rounds_needed(float("nan"), 10.0),
])
def test_bad_parameters_are_value_errors(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError):
        call()
