"""Fault patterns: counts, seeded picks, common-mode failures, and mutants the tests kill."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest

from pytest_req2rank.execution import ReferenceCache, grade
from pytest_req2rank.models import Task
from pytest_req2rank.nversion import Pattern
from pytest_req2rank.nversion._faults import (
    ALGORITHM_LEVEL,
    CODE_LEVEL,
    FailureInjector,
    MutantSearch,
    fault_count,
    inject_code_level,
    inject_common_mode,
    picked_versions,
)
from pytest_req2rank.sandbox import Sandbox


@dataclass(frozen=True)
class Replace:
    """A test common-mode failure: replace ``old`` by ``new`` once, when present."""

    old: str
    new: str

    @property
    def name(self) -> str:
        return f"{self.old}->{self.new}"

    def __call__(self, code: str) -> str | None:
        return code.replace(self.old, self.new, 1) if self.old in code else None


@pytest.mark.parametrize(("n", "counts"), [(1, [0, 1, 0, 1, 1]), (4, [0, 1, 1, 2, 4]),
                                           (5, [0, 1, 2, 3, 5]), (7, [0, 1, 3, 4, 7])])
def test_fault_counts(n: int, counts: list[int]) -> None:
    assert [fault_count(level, n) for level in range(5)] == counts


def test_pattern_names() -> None:
    assert [p.name for p in CODE_LEVEL] == [f"Pat-CL{k}" for k in range(5)]
    assert Pattern.parse("Pat-CL 3") == Pattern.parse("pat-cl3") == CODE_LEVEL[3]
    assert Pattern.parse("Pat-AL1") == ALGORITHM_LEVEL[1]
    with pytest.raises(ValueError):
        Pattern.parse("Pat-CL5")


def test_picks_are_seeded_nested_and_vary_with_the_seed() -> None:
    picks = [picked_versions(5, level, seed=7, task_id="t") for level in range(5)]
    assert picks == [picked_versions(5, level, seed=7, task_id="t") for level in range(5)]
    assert [len(p) for p in picks] == [0, 1, 2, 3, 5]
    assert all(set(a) <= set(b) for a, b in itertools.pairwise(picks))
    assert len({picked_versions(5, 1, seed=seed, task_id="t") for seed in range(20)}) > 1


def test_common_mode_failures_go_to_every_version() -> None:
    failures: list[FailureInjector] = [Replace("<=", "<"), Replace("+ 1", "+ 2"),
                                         Replace("range(n)", "range(n - 1)")]
    assert all(isinstance(f, FailureInjector) for f in failures)
    codes = ["x <= y + 1", "a <= b + 1", "a <= b"]
    none = inject_common_mode(ALGORITHM_LEVEL[0], codes, failures, seed=1, task_id="t")
    assert none.codes == tuple(codes) and not none.faults and not none.picked
    one = inject_common_mode(ALGORITHM_LEVEL[1], codes, failures[:2], seed=1, task_id="t")
    assert one.picked == (0, 1, 2) and len({f.name for f in one.faults}) == 1
    assert len(one.faults) + len(one.missing) == 3  # the same fault, tried on every version
    assert one == inject_common_mode(ALGORITHM_LEVEL[1], codes, failures[:2], seed=1,
                                     task_id="t")
    chosen = {inject_common_mode(ALGORITHM_LEVEL[1], codes, failures[:2], seed=seed,
                                 task_id="t").faults[0].name for seed in range(10)}
    assert chosen == {"<=-><", "+ 1->+ 2"}
    every = inject_common_mode(ALGORITHM_LEVEL[4], codes, failures, seed=1, task_id="t")
    assert every.codes == ("x < y + 2", "a < b + 2", "a < b")
    assert "version 2: + 1->+ 2 does not apply" in every.missing
    assert sum("range(n)" in why for why in every.missing) == 3
    short = inject_common_mode(ALGORITHM_LEVEL[3], ["a <= b"] * 7, failures[:1], seed=1,
                               task_id="t")
    assert short.missing[0] == "4 common-mode failures wanted, 1 available"
    with pytest.raises(ValueError):
        inject_common_mode(CODE_LEVEL[1], codes, failures, seed=1, task_id="t")


TASK = Task(item_id="t/double", dataset="t", task_id="double", form="function",
            prompt="def double(x):\n", reference="def double(x):\n    return x * 2\n",
            entry_point="double",
            test="def check(candidate):\n    assert candidate(2) == 4\n    assert candidate(0) == 0\n")
WEAK = TASK.model_copy(update={
    "task_id": "weak", "test": "def check(candidate):\n    y = candidate(2)\n    assert True\n"})


def test_each_picked_version_gets_a_mutant_the_tests_kill(nv_sandbox: Sandbox,
                                                          nv_cache: ReferenceCache) -> None:
    codes = [TASK.reference, "def double(x):\n    return x + x\n", "def double(x):\n    return 2 * x\n"]
    search = MutantSearch(TASK, nv_sandbox, seed=3, timeout_s=2.0, cache=nv_cache)
    injection = inject_code_level(CODE_LEVEL[4], codes, search)
    assert injection.picked == (0, 1, 2) and len(injection.faults) == 3 and not injection.missing
    for fault in injection.faults:
        assert fault.kind == "mutant" and fault.killed_as not in (None, "success")
        mutated = injection.codes[fault.version]
        assert mutated != codes[fault.version]
        assert grade(TASK, {"solution.py": mutated}, nv_sandbox, timeout_s=2.0,
                     reference_cache=nv_cache).status != "success"
    again = inject_code_level(CODE_LEVEL[4], codes, MutantSearch(
        TASK, nv_sandbox, seed=3, timeout_s=2.0, cache=nv_cache))
    assert again == injection


def test_no_killable_mutant_is_reported_never_faked(nv_sandbox: Sandbox,
                                                    nv_cache: ReferenceCache) -> None:
    search = MutantSearch(WEAK, nv_sandbox, seed=0, timeout_s=2.0, cache=nv_cache)
    injection = inject_code_level(CODE_LEVEL[4], [WEAK.reference, "def double(x:\n"], search)
    assert injection.codes == (WEAK.reference, "def double(x:\n") and not injection.faults
    assert "is killed by the task's tests" in injection.missing[0]
    assert "does not parse" in injection.missing[1]
