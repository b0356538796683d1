"""Run-level bootstrap CI (clustered by requirement) and the paired baseline comparison."""

from __future__ import annotations

import numpy as np
import pytest

from pytest_req2rank.scoring import Interval, bootstrap_ci, paired_bootstrap_diff
from pytest_req2rank.scoring._baseline import PairedDiff, Regression, regressions


def simulated_run(
    rng: np.random.Generator,
    *,
    truth: float,
    requirements: int,
    rounds: int,
    requirement_sd: float,
    round_sd: float,
) -> dict[str, list[float]]:
    """Scores of one run: each requirement has its own difficulty, rounds add noise."""
    effects = rng.normal(0.0, requirement_sd, size=requirements)
    noise = rng.normal(0.0, round_sd, size=(requirements, rounds))
    return {f"req-{i:03d}": list(truth + effects[i] + noise[i]) for i in range(requirements)}


def as_singletons(run: dict[str, list[float]]) -> dict[str, list[float]]:
    """The same scores with every round as its own cluster: the naive i.i.d. bootstrap."""
    return {f"{key}/{r}": [v] for key, values in run.items() for r, v in enumerate(values)}


def test_estimate_is_the_mean_over_every_round() -> None:
    result = bootstrap_ci({"a": [1.0, 2.0, 3.0], "b": [10.0]}, seed=0)
    assert isinstance(result, Interval)
    # 16 / 4, not the mean of requirement means (2 + 10) / 2
    assert result.estimate == 4.0
    # resamples {a, a} -> 6/3 = 2, {a, b} -> 16/4 = 4, {b, b} -> 10, each pair with
    # probability 1/4, 1/2, 1/4: the 2.5 % and 97.5 % percentiles are the extremes
    assert (result.low, result.high) == (2.0, 10.0)


def test_same_seed_same_interval_other_seed_other_interval() -> None:
    run = simulated_run(
        np.random.default_rng(1), truth=70, requirements=20, rounds=3, requirement_sd=10, round_sd=5
    )
    first = bootstrap_ci(run, seed=42)
    assert bootstrap_ci(run, seed=42) == first
    assert bootstrap_ci(dict(reversed(list(run.items()))), seed=42) == first
    other = bootstrap_ci(run, seed=43)
    assert other.estimate == first.estimate
    assert (other.low, other.high) != (first.low, first.high)


def test_level_widens_the_interval() -> None:
    run = simulated_run(
        np.random.default_rng(2), truth=60, requirements=25, rounds=2, requirement_sd=8, round_sd=4
    )
    narrow = bootstrap_ci(run, seed=3, level=0.80)
    wide = bootstrap_ci(run, seed=3, level=0.99)
    assert wide.low < narrow.low < narrow.high < wide.high


def test_one_requirement_gives_a_zero_width_interval() -> None:
    assert bootstrap_ci({"only": [50.0, 70.0, 60.0]}, seed=0) == (60.0, 60.0, 60.0)


def test_clustering_widens_the_interval_when_rounds_agree() -> None:
    rng = np.random.default_rng(5)
    # every requirement scores the same in each of its 3 rounds: 30 pieces of information, not 90
    run = {f"req-{i}": [float(v)] * 3 for i, v in enumerate(rng.normal(60, 15, size=30))}
    clustered = bootstrap_ci(run, seed=9)
    naive = bootstrap_ci(as_singletons(run), seed=9)
    assert clustered.estimate == pytest.approx(naive.estimate)
    ratio = (clustered.high - clustered.low) / (naive.high - naive.low)
    # the standard error grows by sqrt(3) = 1.73
    assert 1.5 < ratio < 2.0


def test_coverage_with_known_truth() -> None:
    truth = 65.0
    rng = np.random.default_rng(20240501)
    runs = 300
    covered = naive_covered = 0
    for run_index in range(runs):
        run = simulated_run(
            rng, truth=truth, requirements=30, rounds=3, requirement_sd=12, round_sd=6
        )
        ci = bootstrap_ci(run, seed=run_index)
        covered += ci.low <= truth <= ci.high
        naive = bootstrap_ci(as_singletons(run), seed=run_index, n_resamples=1000)
        naive_covered += naive.low <= truth <= naive.high
    coverage, naive_coverage = covered / runs, naive_covered / runs
    print(f"clustered bootstrap coverage {coverage:.3f}, naive {naive_coverage:.3f} ({runs} runs)")
    assert 0.88 <= coverage <= 0.99
    # treating rounds as independent is overconfident when requirements differ this much
    assert naive_coverage < 0.85


@pytest.mark.parametrize(
    ("values", "kwargs", "message"),
    [
        ({}, {}, "values_by_cluster is empty"),
        ({"a": [1.0], "b": []}, {}, "requirement 'b' has no scores"),
        ({"a": [1.0, float("nan")]}, {}, "score of 'a' must be a finite number"),
        ({"a": [1.0, "2"]}, {}, "score of 'a' must be a finite number"),
        ({"a": [1.0]}, {"level": 1.0}, "level must lie strictly between 0 and 1"),
        ({"a": [1.0]}, {"n_resamples": 0}, "n_resamples must be a positive integer"),
    ],
)
def test_bootstrap_ci_rejects_bad_input(
    values: dict[str, list[object]], kwargs: dict[str, float], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        bootstrap_ci(values, seed=0, **kwargs)  # type: ignore[arg-type]


def test_paired_diff_pairs_by_requirement() -> None:
    baseline = {"a": 50.0, "b": 60.0, "c": 70.0, "gone": 10.0}
    candidate = {"c": 70.0, "a": 55.0, "b": 50.0, "new": 99.0}
    result = paired_bootstrap_diff(baseline, candidate, seed=0)
    assert isinstance(result, PairedDiff)
    # diffs +5, -10, 0 over the three shared requirements
    assert result.mean_diff == pytest.approx(-5 / 3)
    assert result.n_pairs == 3
    assert -10.0 <= result.low <= result.mean_diff <= result.high <= 5.0
    assert paired_bootstrap_diff(baseline, candidate, seed=0) == result


def test_paired_diff_needs_shared_requirements() -> None:
    with pytest.raises(ValueError, match="share no requirement"):
        paired_bootstrap_diff({"a": 1.0}, {"b": 1.0}, seed=0)
    with pytest.raises(ValueError, match="candidate score of 'a' must be a finite number"):
        paired_bootstrap_diff({"a": 1.0}, {"a": float("inf")}, seed=0)


def _pair(rng: np.random.Generator, drop: float) -> tuple[dict[str, float], dict[str, float]]:
    """Baseline scores of 40 requirements, and a candidate shifted by ``-drop`` plus noise."""
    baseline = rng.uniform(30, 95, size=40)
    candidate = baseline - drop + rng.normal(0, 4, size=40)
    keys = [f"req-{i}" for i in range(40)]
    return dict(zip(keys, baseline.tolist())), dict(zip(keys, candidate.tolist()))


def test_paired_diff_detects_a_real_drop_and_does_not_flag_noise() -> None:
    rng = np.random.default_rng(77)
    trials = 500
    flagged_drop = flagged_noise = 0
    for trial in range(trials):
        # the gate with --r2r-max-drop 0: the whole CI lies below 0
        old, new = _pair(rng, drop=3.0)
        flagged_drop += paired_bootstrap_diff(old, new, seed=trial, n_resamples=1000).high < 0
        old, new = _pair(rng, drop=0.0)
        flagged_noise += paired_bootstrap_diff(old, new, seed=trial, n_resamples=1000).high < 0
    print(
        f"paired gate flags: real 3-point drop {flagged_drop / trials:.3f}, "
        f"noise {flagged_noise / trials:.3f} ({trials} trials)"
    )
    # a 3-point drop against noise sd 4 over 40 pairs: standard error 0.63
    assert flagged_drop / trials >= 0.95
    # a one-sided 2.5 % test: false alarms stay rare (2.9 % measured over 2000 trials)
    assert flagged_noise / trials <= 0.06


def test_pairing_removes_between_requirement_spread() -> None:
    rng = np.random.default_rng(8)
    old, new = _pair(rng, drop=2.0)
    paired = paired_bootstrap_diff(old, new, seed=1)
    assert paired.high < 0
    # unpaired, requirement difficulty (range 30-95) drowns the 2-point drop
    base = bootstrap_ci({k: [v] for k, v in old.items()}, seed=1)
    cand = bootstrap_ci({k: [v] for k, v in new.items()}, seed=1)
    assert cand.high > base.low


def test_regressions_lists_the_largest_drops_first() -> None:
    baseline = {"a": 80.0, "b": 70.0, "c": 60.0, "d": 90.0, "e": 50.0, "f": 40.0}
    candidate = {"a": 60.0, "b": 75.0, "c": 40.0, "d": 89.0, "e": 45.0, "g": 0.0}
    assert regressions(baseline, candidate) == [
        Regression("a", 80.0, 60.0, -20.0),
        Regression("c", 60.0, 40.0, -20.0),
        Regression("e", 50.0, 45.0, -5.0),
        Regression("d", 90.0, 89.0, -1.0),
    ]
    assert [r.requirement for r in regressions(baseline, candidate, top=2)] == ["a", "c"]
    assert regressions(baseline, candidate, top=0) == []
    assert regressions(baseline, baseline) == []
    with pytest.raises(ValueError, match="top must not be negative"):
        regressions(baseline, candidate, top=-1)
