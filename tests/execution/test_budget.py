"""Time budgets follow the reference's measured times, and the first timeout stops a program.

Nothing here asserts a wall time: the budgets computed, the budgets a request carries, which
tests ran, their statuses and the pass ratios."""

from __future__ import annotations

import base64
import marshal
from typing import Any

import pytest

from pytest_req2rank.execution import ReferenceCache, grade, grade_probes
from pytest_req2rank.execution._budget import NOT_RUN, BudgetRule, Budgets
from pytest_req2rank.execution._decompose import decompose
from pytest_req2rank.execution._probes import probe_outcomes
from pytest_req2rank.execution._recording import Recording
from pytest_req2rank.models import IOCase, Probe, Task
from pytest_req2rank.sandbox import (
    ExecOutcome,
    ExecRequest,
    ProcessSandbox,
    Sandbox,
    SandboxWrapper,
)


class Spy(SandboxWrapper):
    """Delegates to a real sandbox and keeps every request with its harness spec."""

    name = "spy"  # type: ignore[assignment]
    warm_modules = False  # type: ignore[assignment]

    def __init__(self, inner: Sandbox) -> None:
        super().__init__(inner)
        self.requests: list[tuple[dict[str, Any], ExecRequest]] = []

    def run(self, request: ExecRequest) -> ExecOutcome:
        lines = request.stdin.split("\n")
        try:
            spec = marshal.loads(base64.b64decode(lines[1], validate=True))
        except (IndexError, ValueError, EOFError, TypeError):
            spec = {}
        self.requests.append((spec if isinstance(spec, dict) else {}, request))
        return self.inner.run(request)

    def specs(self, mode: str) -> list[dict[str, Any]]:
        return [spec for spec, _ in self.requests if spec.get("mode") == mode]


@pytest.fixture
def spy(box: ProcessSandbox) -> Spy:
    return Spy(box)


@pytest.mark.parametrize(("reference_s", "budget"), [
    (None, 5.0),     # no reference: the base
    (0.0001, 1.0),   # a fast reference: the floor
    (0.5, 2.0),      # the multiple
    (3.0, 5.0),      # a slow reference: the base is the ceiling
])
def test_a_tests_budget_is_the_reference_time_clamped(reference_s: float | None,
                                                      budget: float) -> None:
    assert BudgetRule(5.0, multiple=4.0, floor_s=1.0).test(reference_s) == budget


def test_the_floor_never_exceeds_the_base() -> None:
    assert BudgetRule(0.5, multiple=4.0, floor_s=1.0).test(0.0001) == 0.5


def test_the_program_budget() -> None:
    rule = BudgetRule(5.0, multiple=4.0, floor_s=1.0, program_floor_s=2.0)
    # fast references: the program floor
    assert rule.budgets([0.001] * 10) == Budgets((1.0,) * 10, 2.0)
    # 4 x the reference's total, below the sum of the tests' budgets
    assert rule.budgets([0.3, 0.3, 0.4]) == Budgets((1.2, 1.2, 1.6), 4.0)
    # never more than the tests' budgets together
    assert rule.budgets([0.0001]) == Budgets((1.0,), 1.0)
    # without a reference (or with a test it did not measure): min(tests, 3) bases
    assert rule.budgets([None, None]) == Budgets((5.0, 5.0), 10.0)
    assert rule.unknown(7) == Budgets((5.0,) * 7, 15.0)
    assert rule.budgets([0.1, None]).program_s == 10.0


def test_a_reference_is_measured_with_a_generous_budget() -> None:
    assert BudgetRule(0.5).for_reference().unknown(2) == Budgets((10.0, 10.0), 20.0)


def test_an_invalid_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="invalid budget rule"):
        BudgetRule(0.0)


FOUR = ("def check(candidate):\n    assert candidate(1) == 2\n    assert candidate(2) == 3\n"
        "    assert candidate(3) == 4\n    assert candidate(4) == 5\n")


def _function_task(reference: str = "def f(x):\n    return x + 1\n") -> Task:
    return Task(item_id="t/t", dataset="t", task_id="t", form="function", prompt="def f(x):\n",
                reference=reference, entry_point="f", test=FOUR)


def test_calls_carry_budgets_from_the_recorded_reference(spy: Spy) -> None:
    cache = ReferenceCache()
    task = _function_task()
    assert grade(task, {"solution.py": task.reference}, spy, timeout_s=5,
                 reference_cache=cache).status == "success"
    recording = cache.reference(task, decompose(FOUR, "f"))
    assert isinstance(recording, Recording)
    expected = BudgetRule(5.0).budgets([test.seconds for test in recording.tests])
    [calls] = spy.specs("calls")
    assert [test["budget"] for test in calls["tests"]] == list(expected.tests) == [1.0] * 4
    assert calls["program_s"] == expected.program_s == 3.0
    [record] = spy.specs("record")
    assert record["per_test_s"] == 10.0  # the reference's own run: generous


@pytest.mark.parametrize("reference", [True, False], ids=["replayed", "own-run"])
def test_the_first_timeout_stops_the_program(spy: Spy, reference: bool) -> None:
    # the second test loops; the third would raise and the fourth pass, were they run
    code = ("def f(x):\n    while x == 2:\n        pass\n    if x == 3:\n"
            "        raise ValueError(x)\n    return x + 1\n")
    task = _function_task("def f(x):\n    return x + 1\n" if reference else "")
    result = grade(task, {"solution.py": code}, spy, timeout_s=0.5, floor_s=0.2,
                   reference_cache=ReferenceCache())
    assert [t.status for t in result.tests] == ["success", "timeout", "timeout", "timeout"]
    assert [t.detail for t in result.tests[2:]] == [NOT_RUN, NOT_RUN]
    assert "took longer than" in result.tests[1].detail
    assert result.status == "timeout" and result.passed == 1 and result.pass_ratio == 0.25


def test_a_program_slow_in_every_test_is_stopped_by_its_budget(spy: Spy) -> None:
    # each probe fits its own budget, but four cannot fit the program's
    sleepy = [Probe(name=f"p{i}", code="import time\ntime.sleep(0.2)\nresult = 1", expect=1)
              for i in range(4)]
    tests, _ = probe_outcomes({}, sleepy, spy, setup="", budgets=Budgets((1.0,) * 4, 0.5))
    assert tests[0].status == "success" and tests[-1].status == "timeout"
    assert [t.status for t in tests].count("success") < 3
    [spec] = spy.specs("probes")
    assert spec["program_s"] == 0.5 and spy.requests[0][1].timeout_s == 1.5  # + start slack


def _io_task(reference: str, *cases: tuple[str, str]) -> Task:
    return Task(item_id="t/io", dataset="t", task_id="io", form="io", prompt="",
                reference=reference, cases=tuple(IOCase(input=i, output=o) for i, o in cases))


DOUBLE = "print(2 * int(input()))\n"
CASES = (("1\n", "2\n"), ("2\n", "4\n"), ("3\n", "6\n"))


def test_io_cases_carry_budgets_from_the_reference(spy: Spy) -> None:
    cache = ReferenceCache()
    task = _io_task(DOUBLE, *CASES)
    assert grade(task, {"solution.py": DOUBLE}, spy, timeout_s=5,
                 reference_cache=cache).status == "success"
    timeouts = [request.timeout_s for _, request in spy.requests]
    assert timeouts == [10.0] * 3 + [1.0] * 3  # the reference measured, then the candidate
    spy.requests.clear()
    grade(task, {"solution.py": DOUBLE}, spy, timeout_s=5, reference_cache=cache)
    assert [request.timeout_s for _, request in spy.requests] == [1.0] * 3  # cached


def test_io_cases_after_a_timeout_are_not_run(spy: Spy) -> None:
    code = "x = int(input())\nwhile x == 2:\n    pass\nprint(2 * x)\n"
    result = grade(_io_task(DOUBLE, *CASES), {"solution.py": code}, spy, timeout_s=5,
                   floor_s=0.3, reference_cache=ReferenceCache())
    assert [t.status for t in result.tests] == ["success", "timeout", "timeout"]
    assert result.tests[2].detail == NOT_RUN and result.pass_ratio == 1 / 3
    assert len(spy.requests) == 3 + 2  # the reference's three, the candidate's first two


def test_io_without_a_reference_keeps_the_base(spy: Spy) -> None:
    grade(_io_task("", *CASES), {"solution.py": DOUBLE}, spy, timeout_s=3)
    assert [request.timeout_s for _, request in spy.requests] == [3.0] * 3


def test_io_with_a_failing_reference_keeps_the_base(spy: Spy) -> None:
    grade(_io_task("print(0)\n", *CASES), {"solution.py": DOUBLE}, spy, timeout_s=3,
          reference_cache=ReferenceCache())
    assert [request.timeout_s for _, request in spy.requests][3:] == [3.0] * 3


PROBES = [Probe(name="one", code="from m import f\nresult = f(1)", expect=2),
          Probe(name="two", code="from m import f\nresult = f(2)", expect=3),
          Probe(name="three", code="from m import f\nresult = f(3)", expect=4)]
MODULE = {"m.py": "def f(x):\n    return x + 1\n"}


def test_probes_carry_budgets_from_the_reference(spy: Spy) -> None:
    cache = ReferenceCache()
    assert grade_probes(MODULE, PROBES, spy, timeout_s=5, reference=MODULE,
                        reference_cache=cache).status == "success"
    reference, candidate = spy.specs("probes")
    assert reference["per_test_s"] == 10.0
    assert [probe["budget"] for probe in candidate["probes"]] == [1.0] * 3
    assert candidate["program_s"] == 3.0
    spy.requests.clear()
    assert grade_probes(MODULE, PROBES, spy, timeout_s=5).status == "success"
    [unknown] = spy.specs("probes")
    assert [probe["budget"] for probe in unknown["probes"]] == [5.0] * 3
    assert unknown["program_s"] == 15.0


def test_probes_after_a_timeout_are_not_run(spy: Spy) -> None:
    looping = {"m.py": "def f(x):\n    while x == 2:\n        pass\n    if x == 3:\n"
                       "        raise ValueError(x)\n    return x + 1\n"}
    result = grade_probes(looping, PROBES, spy, timeout_s=5, floor_s=0.3, reference=MODULE,
                          reference_cache=ReferenceCache())
    assert [t.status for t in result.tests] == ["success", "timeout", "timeout"]
    assert result.tests[2].detail == NOT_RUN and result.pass_ratio == 1 / 3
