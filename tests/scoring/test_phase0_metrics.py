"""Phase-0 metrics (ARCHITECTURE.md, Metrics) against hand-computed cases, including its edge cases."""

from __future__ import annotations

import math
import warnings

import pytest

from pytest_req2rank import models, scoring
from pytest_req2rank.scoring import ProblemOutcome, phase0_metrics, phase0_warnings
from pytest_req2rank.scoring._metrics import _percentile, error_distribution


def test_quality_metrics_hand_computed() -> None:
    ratios = [1.0, 0.5, 0.0, 1.0, 0.25]
    assert scoring.accepted_at_1(ratios) == pytest.approx(2 / 5)
    assert scoring.pass_ratio_mean(ratios) == pytest.approx(2.75 / 5)
    assert scoring.pass_ratio_p50(ratios) == pytest.approx(0.5)
    # sorted 0, .25, .5, 1, 1: the 90th percentile sits at index 3.6 -> 1.0
    assert scoring.pass_ratio_p90(ratios) == pytest.approx(1.0)
    assert scoring.pass_ratio_p90([0.0, 0.5, 1.0]) == pytest.approx(0.9)


def test_exec_success_counts_success_and_wrong_answer_only() -> None:
    statuses = ["success", "wrong_answer", "syntax_error", "runtime_error", "timeout", "api_error"]
    # api_error is infrastructure: left out of the denominator
    assert scoring.exec_success_rate(statuses) == pytest.approx(2 / 5)


@pytest.mark.parametrize(
    ("tests", "expected"),
    [
        (["success", "success"], "success"),
        (["success", "wrong_answer"], "wrong_answer"),
        (["wrong_answer", "timeout"], "timeout"),
        (["timeout", "runtime_error", "wrong_answer"], "runtime_error"),
        (["runtime_error", "syntax_error"], "syntax_error"),
        (["compile_error"], "syntax_error"),
        (["success", "api_error"], "runtime_error"),  # Metrics 3.2: unknown -> runtime
    ],
)
def test_final_status_priority(tests: list[str], expected: str) -> None:
    assert models.final_status(tests) == expected


def test_final_status_of_no_tests_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least one test status"):
        models.final_status([])


def test_error_distribution_sums_to_one_and_is_empty_without_problems() -> None:
    statuses = ["success", "wrong_answer", "wrong_answer", "timeout", "truncated"]
    dist = error_distribution(statuses)
    assert dist == {"syntax_error_rate": 0.0, "runtime_error_rate": 0.0, "timeout_rate": 0.2,
                    "truncated_rate": 0.2, "wrong_answer_rate": 0.4, "success_rate": 0.2}
    assert scoring.truncated_rate([*statuses, "api_error"]) == 0.2
    assert math.fsum(dist.values()) == pytest.approx(1.0)
    assert error_distribution([]) == {}
    assert error_distribution(["api_error"]) == {}


def test_cost_per_solved_counts_all_problems_over_solved_ones() -> None:
    assert scoring.cost_per_solved_tokens([100, 300, 200], [True, False, False]) == 600
    assert scoring.cost_per_solved_judge_time([1.0, 2.0], [True, True]) == 1.5
    assert scoring.cost_per_solved_tokens([10], [False]) == math.inf
    assert scoring.cost_per_solved_judge_time([1.0], [False]) == math.inf
    # unknown token counts are never read as zero
    assert scoring.cost_per_solved_tokens([None, None], [True, False]) is None
    assert scoring.cost_per_solved_tokens([100, None], [True, False]) == 200


def test_judge_time_percentiles_use_linear_interpolation() -> None:
    times = [float(t) for t in range(1, 101)]
    assert scoring.avg_total_judge_time(times) == pytest.approx(50.5)
    assert scoring.p50_total_judge_time(times) == pytest.approx(50.5)
    assert scoring.p95_total_judge_time(times) == pytest.approx(95.05)
    assert scoring.p99_total_judge_time(times) == pytest.approx(99.01)


@pytest.mark.parametrize(
    ("values", "q", "expected"),
    [
        ([3.0], 90, 3.0),
        ([0.0, 1.0], 25, 0.25),
        ([4.0, 1.0, 3.0, 2.0], 0, 1.0),
        ([4.0, 1.0, 3.0, 2.0], 100, 4.0),
        ([0.0, math.inf], 25, math.inf),
        ([10**20, 0], 50, 5e19),
    ],
)
def test_percentile_edge_cases(values: list[float], q: float, expected: float) -> None:
    assert _percentile(values, q) == expected


def test_percentile_of_nothing_is_none_and_nan_propagates_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _percentile([], 50) is None
        assert math.isnan(_percentile([1.0, math.nan, 2.0], 50) or 0.0)
        assert math.isnan(_percentile([-math.inf, math.inf], 50) or 0.0)  # inf - inf


def test_throughput_and_its_edge_cases() -> None:
    assert scoring.throughput(10, 4.0) == 2.5
    assert scoring.throughput(10, 0.0) is None
    assert scoring.throughput(10, None) is None
    with pytest.raises(ValueError):
        scoring.throughput(1, -1.0)


def test_reliability_rates_count_every_item() -> None:
    statuses = ["api_error", "success", "sandbox_error", "wrong_answer"]
    assert scoring.api_error_rate(statuses) == 0.25
    assert scoring.sandbox_error_rate(statuses) == 0.25
    assert scoring.api_error_rate([]) is None


def test_empty_input_gives_none_not_zero() -> None:
    metrics = phase0_metrics([], wall_clock_s=1.0)
    assert all(value is None for value in metrics.values()), metrics


def outcome(status: str, ratio: float, tokens: int | None = 10, time: float = 0.1) -> ProblemOutcome:
    return ProblemOutcome(status=status, pass_ratio=ratio, output_tokens=tokens, judge_time_s=time)


def test_phase0_metrics_of_a_dataset() -> None:
    problems = [
        outcome("success", 1.0, 100, 0.2),
        outcome("wrong_answer", 0.5, 200, 0.4),
        outcome("timeout", 0.0, 300, 1.0),
        outcome("api_error", 0.0, None, 0.0),
    ]
    m = phase0_metrics(problems, wall_clock_s=2.0)
    assert m["accepted_at_1"] == pytest.approx(1 / 3)
    assert m["pass_ratio_mean"] == pytest.approx(0.5)
    assert m["exec_success_rate"] == pytest.approx(2 / 3)
    assert m["timeout_rate"] == pytest.approx(1 / 3)
    assert m["avg_total_gen_tokens"] == pytest.approx(200)
    assert m["cost_per_solved_tokens"] == pytest.approx(600)
    assert m["cost_per_solved_judge_time"] == pytest.approx(1.6)
    assert m["throughput"] == pytest.approx(2.0)
    assert m["api_error_rate"] == pytest.approx(0.25)


def test_nothing_solved_is_infinite_cost() -> None:
    m = phase0_metrics([outcome("wrong_answer", 0.5)], wall_clock_s=1.0)
    assert m["accepted_at_1"] == 0.0
    assert m["cost_per_solved_tokens"] == math.inf
    assert scoring.json_safe(m["cost_per_solved_tokens"]) == "inf"


def test_thresholds_turn_into_warnings() -> None:
    quiet = {"api_error_rate": 0.0, "sandbox_error_rate": 0.004, "timeout_rate": 0.1}
    assert phase0_warnings("d", quiet) == []
    loud = {"api_error_rate": 0.06, "sandbox_error_rate": 0.01, "timeout_rate": 0.31}
    warnings = phase0_warnings("d", loud)
    assert warnings[0].startswith("ALERT: eval/d/api_error_rate = 6.0%")
    assert warnings[1].startswith("elevated: eval/d/sandbox_error_rate = 1.0%")
    assert warnings[2].startswith("ALERT: eval/d/timeout_rate = 31.0%")


def test_metric_names_follow_the_logging_convention() -> None:
    names = scoring.metric_names("humaneval", {"accepted_at_1": 0.5})
    assert names == {"eval/humaneval/accepted_at_1": 0.5}
