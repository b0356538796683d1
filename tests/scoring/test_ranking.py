"""The ranking table: known answers on constructed scores, and the rank interval's coverage."""

from __future__ import annotations

import numpy as np
import pytest

from pytest_req2rank.scoring import bootstrap_ci, rank_models


def _scores(per_requirement: dict[str, list[float]]) -> dict[str, dict[str, list[float]]]:
    """model -> one score per requirement, as model -> requirement -> [score]."""
    return {model: {f"req-{i:02d}": [value] for i, value in enumerate(values)}
            for model, values in per_requirement.items()}


def _pass_fail(rng: np.random.Generator, p: float, n: int) -> list[float]:
    return [100.0 * (rng.random() < p) for _ in range(n)]


def test_a_clear_winner_ranks_first_alone_and_its_rank_is_certain() -> None:
    rng = np.random.default_rng(7)
    scores = _scores({"strong": _pass_fail(rng, 0.95, 60), "weak": _pass_fail(rng, 0.2, 60),
                      "middle": _pass_fail(rng, 0.55, 60)})
    ranking = rank_models(scores, paired=True, seed=1)
    assert [row.model for row in ranking.models] == ["strong", "middle", "weak"]
    assert [(row.rank, row.rank_low, row.rank_high) for row in ranking.models] == [
        (1, 1, 1), (2, 2, 2), (3, 3, 3)]
    assert ranking.groups == [["strong"], ["middle"], ["weak"]]
    leader, *others = ranking.models
    assert leader.diff_to_leader == (0.0, 0.0, 0.0)
    for row in others:
        assert row.diff_to_leader.estimate == pytest.approx(row.score.estimate
                                                            - leader.score.estimate)
        assert row.diff_to_leader.high < 0  # separated from the leader


def test_identical_models_tie_they_share_rank_one_and_one_group() -> None:
    values = [100.0, 0.0, 100.0, 100.0, 0.0, 50.0, 100.0, 0.0] * 4
    ranking = rank_models(_scores({"a": values, "b": list(values)}), paired=True, seed=3)
    assert [row.rank for row in ranking.models] == [1, 1]
    assert [(row.rank_low, row.rank_high) for row in ranking.models] == [(1, 1), (1, 1)]
    assert ranking.groups == [["a", "b"]]
    assert ranking.models[1].diff_to_leader == (0.0, 0.0, 0.0)


def test_three_models_two_indistinguishable_and_one_behind_make_two_groups() -> None:
    rng = np.random.default_rng(11)
    top = [100.0] * 35 + [0.0] * 15
    close = [0.0] * 3 + [100.0] * 32 + [100.0] * 2 + [0.0] * 13  # 3 lost, 2 won: one apart
    scores = _scores({"top": top, "close": close, "behind": _pass_fail(rng, 0.3, 50)})
    ranking = rank_models(scores, paired=True, seed=5)
    assert [set(group) for group in ranking.groups] == [{"top", "close"}, {"behind"}]
    first, second, third = ranking.models
    assert (first.rank_low, first.rank_high) == (1, 2)
    assert (second.rank_low, second.rank_high) == (1, 2)
    assert (third.rank_low, third.rank_high) == (3, 3)
    assert second.diff_to_leader.estimate == pytest.approx(-2.0)
    assert second.diff_to_leader.low < 0 < second.diff_to_leader.high


def test_a_paired_models_score_interval_is_the_runs_own_bootstrap_ci() -> None:
    rng = np.random.default_rng(2)
    scores = {model: {f"req-{i}": list(rng.uniform(0, 100, size=3)) for i in range(12)}
              for model in ("a", "b", "c")}
    ranking = rank_models(scores, paired=True, seed=42, n_resamples=500)
    for row in ranking.models:
        own = bootstrap_ci(scores[row.model], seed=42, n_resamples=500)
        assert tuple(row.score) == pytest.approx(tuple(own))
        assert row.requirements == 12


def test_pairing_narrows_the_difference_of_correlated_models() -> None:
    rng = np.random.default_rng(4)
    base = rng.uniform(0, 100, size=40)
    a = _scores({"a": list(base), "b": list(np.clip(base - 5 + rng.normal(0, 3, 40), 0, 100))})
    paired = rank_models(a, paired=True, seed=1).models[1].diff_to_leader
    unpaired = rank_models(a, paired=False, seed=1).models[1].diff_to_leader
    assert paired.estimate == pytest.approx(unpaired.estimate)
    assert paired.high - paired.low < (unpaired.high - unpaired.low) / 3
    assert paired.high < 0 < unpaired.high  # only pairing separates them


def test_unpaired_models_may_have_different_requirements() -> None:
    scores = {"a": {"x": [100.0], "y": [100.0], "z": [0.0]},
              "b": {"p": [0.0], "q": [0.0], "r": [100.0], "s": [0.0]}}
    ranking = rank_models(scores, paired=False, seed=1)
    assert not ranking.paired
    assert [(row.model, row.requirements) for row in ranking.models] == [("a", 3), ("b", 4)]


def test_the_table_is_reproducible_and_independent_of_mapping_order() -> None:
    rng = np.random.default_rng(9)
    scores = _scores({m: _pass_fail(rng, p, 20) for m, p in (("x", .5), ("y", .6), ("z", .7))})
    reordered = {m: dict(reversed(scores[m].items())) for m in reversed(list(scores))}
    assert rank_models(scores, paired=True, seed=8) == rank_models(reordered, paired=True, seed=8)


@pytest.mark.parametrize("scores, message", [
    ({}, "no models"),
    ({"a": {}}, "no scored requirement"),
    ({"a": {"r": []}}, "has no scores"),
    ({"a": {"r": [float("nan")]}}, "finite"),
])
def test_bad_input_is_a_value_error(scores: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rank_models(scores, paired=True, seed=0)


def test_rank_intervals_cover_the_true_rank_in_a_simulation() -> None:
    """Five models 0.1 apart in accepted@1, 40 requirements each, paired draws: each model's
    95 % rank interval holds its true rank in at least 90 % of 200 simulated runs (the exact
    share is reported by tests/perf/bench_validity.py)."""
    truth = [0.9, 0.8, 0.7, 0.6, 0.5]
    rng = np.random.default_rng(2024)
    runs, covered = 200, np.zeros(len(truth))
    for run in range(runs):
        scores = _scores({f"m{k}": _pass_fail(rng, p, 40) for k, p in enumerate(truth)})
        ranking = rank_models(scores, paired=True, seed=run, n_resamples=400)
        for row in ranking.models:
            k = int(row.model[1:])
            covered[k] += row.rank_low <= k + 1 <= row.rank_high
    coverage = covered / runs
    assert coverage.min() >= 0.90, coverage
