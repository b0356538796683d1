"""FR, MCR, CCR, TPR and AFVR on hand-made task outcomes."""

from __future__ import annotations

import pytest

from pytest_req2rank.nversion import Output
from pytest_req2rank.nversion._metrics import (
    TaskOutcome,
    added_failure_rate,
    complete_consensus_rate,
    failure_rate,
    majority_consensus_rate,
    mean_test_pass_rate,
    pattern_metrics,
)
from pytest_req2rank.nversion._voting import vote_task


def val(value: object) -> Output:
    return Output(kind="value", value=value)


RAISED = Output(kind="raised", detail="ValueError")
REFERENCE = [val(1), val(2)]
RIGHT, WRONG = [val(1), val(2)], [val(1), val(3)]


def outcome(versions: list[list[Output]], pass_rates: list[float], failing: int = 0,
            failing_before: int = 0) -> TaskOutcome:
    return TaskOutcome(vote=vote_task("t", versions, REFERENCE), pass_rates=tuple(pass_rates),
                       failing=failing, failing_before=failing_before)


ALL_RIGHT = outcome([RIGHT] * 3, [1, 1, 1])
ONE_WRONG = outcome([RIGHT, RIGHT, WRONG], [1, 1, 0.5], failing=1)
TIE = outcome([RIGHT, RIGHT, WRONG, WRONG], [1, 1, 0.5, 0.5], failing=2)
ALL_FAIL = outcome([[RAISED, RAISED]] * 3, [0, 0, 0], failing=3)
WRONG_MAJORITY = outcome([WRONG, WRONG, RIGHT], [0.5, 0.5, 1], failing=2, failing_before=1)


def test_failure_rate_counts_no_consensus_as_a_failure() -> None:
    assert failure_rate([ALL_RIGHT, ONE_WRONG]) == 0
    assert failure_rate([ALL_RIGHT, TIE]) == 0.5
    assert failure_rate([ALL_RIGHT, ALL_FAIL, WRONG_MAJORITY, TIE]) == 0.75


def test_consensus_rates() -> None:
    outcomes = [ALL_RIGHT, ONE_WRONG, TIE, ALL_FAIL, WRONG_MAJORITY]
    assert majority_consensus_rate(outcomes) == 3 / 5  # all right, 2 of 3 twice
    assert complete_consensus_rate(outcomes) == 1 / 5
    assert complete_consensus_rate(outcomes) <= majority_consensus_rate(outcomes)
    assert majority_consensus_rate([TIE]) == 0  # 2 of 4 is no strict majority


def test_test_pass_rate_is_the_mean_over_every_version() -> None:
    assert mean_test_pass_rate([ONE_WRONG, TIE]) == pytest.approx((2.5 + 3) / 7)


def test_added_failure_rate() -> None:
    assert added_failure_rate([ALL_RIGHT]) == 0
    assert added_failure_rate([ONE_WRONG, WRONG_MAJORITY]) == pytest.approx((1 / 3 + 1 / 3) / 2)
    assert added_failure_rate([ALL_FAIL]) == 1


def test_n_equal_one() -> None:
    alone = outcome([RIGHT], [1.0])
    failed = outcome([[RAISED, val(2)]], [0.5], failing=1)
    metrics = pattern_metrics("Pat-CL1", [alone, failed])
    assert (metrics.fr, metrics.mcr, metrics.ccr) == (0.5, 0.5, 0.5)
    assert metrics.no_consensus == 1 and metrics.tpr == 0.75 and metrics.afvr == 0.5


def test_pattern_metrics_bundle() -> None:
    metrics = pattern_metrics("Pat-CL2", [ALL_RIGHT, TIE])
    assert metrics.tasks == 2 and metrics.correct == 1 and metrics.no_consensus == 1
    assert (metrics.fr, metrics.mcr, metrics.ccr) == (0.5, 0.5, 0.5)


def test_undefined_and_inconsistent_inputs_are_errors() -> None:
    with pytest.raises(ValueError):
        failure_rate([])
    with pytest.raises(ValueError):
        outcome([RIGHT] * 3, [1, 1])
    with pytest.raises(ValueError):
        outcome([RIGHT] * 3, [1, 1, 1], failing=4)
