"""Collection: distinct before identical, passing before failing, IRQN-accepted before
unresolved, the least similar next; repeats when the pool is short."""

from __future__ import annotations

from pytest_req2rank.models import ExecutionResult
from pytest_req2rank.nversion import collect
from pytest_req2rank.nversion._collection import Graded
from pytest_req2rank.nversion._irqn import Candidate


def _graded(name: str, code: str, *, passed: bool = True, accepted: bool = True) -> Graded:
    status = "success" if passed else "wrong_answer"
    return Graded(Candidate(name, code, "t"), ExecutionResult(status=status), accepted=accepted)


def _similarity(a: str, b: str) -> float:
    return 1.0 if a == b else 0.9 if a[0] == b[0] else 0.1


def test_passing_distinct_and_least_similar_first() -> None:
    pool = [_graded("a1", "a1"), _graded("a2", "a2"), _graded("b", "b"),
            _graded("f", "f", passed=False), _graded("u", "u", accepted=False)]
    picked = collect(pool, 3, _similarity)
    assert [p.graded.candidate.id for p in picked] == ["a1", "b", "a2"]
    picked = collect(pool, 5, _similarity)
    assert [p.graded.candidate.id for p in picked] == ["a1", "b", "a2", "u", "f"]
    assert not any(p.repeated for p in picked)


def test_identical_programs_come_after_distinct_failing_ones_and_say_so() -> None:
    pool = [_graded("x", "same"), _graded("y", "same"), _graded("f", "fail", passed=False)]
    picked = collect(pool, 3, _similarity)
    assert [p.graded.candidate.id for p in picked] == ["x", "f", "y"]
    assert [p.repeated for p in picked] == [False, False, True]


def test_a_short_pool_repeats_and_an_empty_one_gives_nothing() -> None:
    picked = collect([_graded("only", "only")], 3, _similarity)
    assert [p.graded.candidate.id for p in picked] == ["only"] * 3
    assert [p.repeated for p in picked] == [False, True, True]
    assert collect([], 3, _similarity) == []
