"""Pooling several runs' scores: one run is itself, agreeing runs narrow the interval,
disagreeing runs widen it, and no run weighs infinitely."""

from __future__ import annotations

import math

import pytest

from pytest_req2rank.scoring import Interval, pooled_interval
from pytest_req2rank.scoring._intervals import Z95
from pytest_req2rank.scoring._pooling import MIN_SE


def test_one_run_is_its_own_pool_with_its_own_interval() -> None:
    run = Interval(80.0, 71.5, 86.0)  # a bootstrap interval need not be symmetric
    assert pooled_interval([run]) == run


def test_agreeing_runs_pool_to_their_inverse_variance_mean_with_a_narrower_interval() -> None:
    runs = [Interval(80.0, 76.0, 84.0), Interval(82.0, 80.0, 84.0)]
    variances = [((run.high - run.low) / (2 * Z95)) ** 2 for run in runs]
    weights = [1 / v for v in variances]
    expected = sum(w * run.estimate for w, run in zip(weights, runs, strict=True)) / sum(weights)
    pooled = pooled_interval(runs)
    assert pooled.estimate == pytest.approx(expected)
    assert pooled.high - pooled.low == pytest.approx(2 * Z95 / math.sqrt(sum(weights)))
    assert pooled.high - pooled.low < min(run.high - run.low for run in runs)


def test_runs_that_disagree_beyond_their_intervals_widen_the_pool() -> None:
    """Between-run variance (DerSimonian-Laird): far apart, tight runs do not make a tight
    pool around their mean."""
    runs = [Interval(60.0, 58.0, 62.0), Interval(90.0, 88.0, 92.0)]
    pooled = pooled_interval(runs)
    assert pooled.estimate == pytest.approx(75.0)
    assert pooled.low < 60.0 and pooled.high > 90.0


def test_a_zero_width_interval_weighs_as_the_least_standard_error() -> None:
    exact, other = Interval(90.0, 90.0, 90.0), Interval(70.0, 60.0, 80.0)
    pooled = pooled_interval([exact, other], min_se=MIN_SE)
    assert 70.0 < pooled.estimate < 90.0 and math.isfinite(pooled.high - pooled.low)


def test_pooling_nothing_or_a_non_number_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least one run"):
        pooled_interval([])
    with pytest.raises(ValueError, match="finite"):
        pooled_interval([Interval(float("nan"), 0.0, 1.0), Interval(1.0, 0.0, 2.0)])
