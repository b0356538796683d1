"""The generation state machine on its own: legal moves, the record of each step, the retry
bound, rollbacks and their memory."""

from __future__ import annotations

import pytest

from pytest_req2rank.models import Usage
from pytest_req2rank.nversion import State
from pytest_req2rank.nversion._fsm import RetryBoundReached, StateMachine


def _machine(**bounds: int) -> StateMachine:
    ticks = iter(range(100))
    return StateMachine(max_retries=bounds.get("retries", 2),
                        max_rollbacks=bounds.get("rollbacks", 1), clock=lambda: next(ticks))


def test_transitions_walk_the_five_states_and_record_usage_and_time() -> None:
    machine = _machine()
    machine.spend(Usage(calls=1, prompt_tokens=10, completion_tokens=2, cost_usd=0.5))
    for _ in range(5):
        machine.transition("ok")
    assert machine.state is State.COMPLETE and machine.done
    assert [t.target for t in machine.transitions] == [
        "ideation", "synthesis", "validation", "collection", "complete"]
    first = machine.transitions[0]
    assert (first.calls, first.prompt_tokens, first.cost_usd, first.seconds) == (1, 10, 0.5, 1)
    assert machine.transitions[1].calls == 0 and machine.transitions[1].prompt_tokens is None
    assert machine.usage.calls == 1
    with pytest.raises(ValueError, match="has ended"):
        machine.transition("again")


def test_a_retry_stays_and_the_bound_is_the_error_end() -> None:
    machine = _machine(retries=2)
    machine.retry("bad json", 1)
    machine.retry("bad json", 2)
    assert machine.state is State.UNDERSTANDING and machine.retries == 2
    with pytest.raises(RetryBoundReached):
        machine.retry("bad json", 3)
    assert machine.state is State.ERROR
    assert machine.transitions[-1].action == "error"
    assert machine.transitions[-1].reason == "retry bound (2) reached: bad json"


def test_a_rollback_goes_back_once_and_is_remembered() -> None:
    machine = _machine(rollbacks=1)
    machine.transition("ok")
    machine.transition("ok")
    with pytest.raises(ValueError, match="earlier state"):
        machine.rollback(State.VALIDATION, "forward is no rollback")
    machine.rollback(State.IDEATION, "too similar")
    assert machine.state is State.IDEATION and machine.rollbacks == 1
    assert machine.memory == ["synthesis -> ideation: too similar"]
    assert not machine.can_roll_back()
    machine.transition("ok")
    with pytest.raises(ValueError, match="no rollback left"):
        machine.rollback(State.IDEATION, "again")


def test_fail_is_the_error_end_from_any_state() -> None:
    machine = _machine()
    machine.transition("ok")
    machine.fail("the provider failed")
    assert machine.state is State.ERROR
    assert (machine.transitions[-1].source, machine.transitions[-1].target) == ("ideation",
                                                                              "error")
