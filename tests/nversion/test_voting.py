"""Strict-majority voting on hand-made outputs: ties, pluralities, failures, tolerance."""

from __future__ import annotations

import pytest

from pytest_req2rank.nversion import Output, vote
from pytest_req2rank.nversion._outputs import same_output
from pytest_req2rank.nversion._voting import vote_task


def val(value: object) -> Output:
    return Output(kind="value", value=value)


RAISED = Output(kind="raised", detail="ZeroDivisionError: division by zero")
TIMEOUT = Output(kind="failed", detail="timeout")


def test_strict_majority_wins_with_odd_n() -> None:
    result = vote([val(1), val(1), val(2)], val(1))
    assert result.consensus and result.winner == val(1) and result.support == 2 and result.correct


def test_a_wrong_majority_is_voted_and_incorrect() -> None:
    result = vote([val(2), val(2), val(1)], val(1))
    assert result.winner == val(2) and not result.correct


def test_a_tie_with_even_n_is_no_consensus() -> None:
    result = vote([val(1), val(1), val(2), val(2)], val(1))
    assert not result.consensus and result.winner is None and result.support == 2
    assert not result.correct


def test_half_of_an_even_n_is_not_a_strict_majority() -> None:
    assert not vote([val(1), val(1), val(2), val(3)], val(1)).consensus
    assert vote([val(1), val(1), val(1), val(3)], val(1)).correct


def test_a_plurality_is_no_consensus() -> None:
    result = vote([val(1), val(1), val(2), val(3), val(4)], val(1))
    assert not result.consensus and result.support == 2


def test_failures_never_win_and_count_in_n() -> None:
    assert not vote([RAISED, RAISED, RAISED, val(1), val(1)], val(1)).consensus
    result = vote([RAISED, TIMEOUT, val(1), val(1), val(1)], val(1))
    assert result.correct and result.failures == 2
    everyone_failed = vote([RAISED, RAISED, RAISED], val(1))
    assert everyone_failed.winner is None and everyone_failed.failures == 3
    assert not same_output(RAISED, RAISED)


def test_n_equal_one() -> None:
    assert vote([val([1, 2])], val([1, 2])).correct
    assert not vote([RAISED], val(1)).consensus


def test_floats_match_within_the_tolerance() -> None:
    result = vote([val(0.33), val(0.33000000000000007), val(0.5)], val(0.33))
    assert result.support == 2 and result.correct
    assert not same_output(val(0.33), val(0.331))
    assert same_output(val((1, 2.0)), val([1, 2.0000000001]))
    assert not same_output(val(True), val(1))
    assert same_output(val({1, 2}), val({2, 1}))


def test_task_vote_needs_every_input_voted_correct() -> None:
    reference = [val(1), val(2)]
    right, wrong = [val(1), val(2)], [val(1), val(3)]
    assert vote_task("t", [right, right, wrong], reference).correct
    split = vote_task("t", [right, wrong, [val(9), val(3)]], reference)
    assert not split.correct and not split.no_consensus  # input 1: 2 of 3 say 3
    assert split.votes[1].winner == val(3)


def test_agreement_is_over_whole_output_vectors() -> None:
    reference = [val(1), val(2)]
    a, b, c = [val(1), val(2)], [val(1), val(5)], [val(7), val(2)]
    task = vote_task("t", [a, b, c], reference)
    assert task.correct  # each input has a correct 2-of-3 majority...
    assert task.largest_agreeing == 1 and not task.majority_consensus  # ...but no two agree
    failing = vote_task("t", [a, a, [val(1), RAISED]], reference)
    assert failing.majority_consensus and not failing.complete_consensus
    assert vote_task("t", [a, a], reference).complete_consensus


def test_malformed_votes_are_errors() -> None:
    with pytest.raises(ValueError):
        vote([], val(1))
    with pytest.raises(ValueError):
        vote_task("t", [[val(1)], [val(1), val(2)]], [val(1)])
