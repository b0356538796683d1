"""Each common-mode failure is a real, deterministic transformation that changes behaviour:
it applies to library versions, the result compiles, and graded with the task's own HumanEval
tests at least one transformed version fails."""

from __future__ import annotations

import pytest

from pytest_req2rank.models import Task
from pytest_req2rank.nversion import FAMILIES, NotApplicable, load_common_modes
from pytest_req2rank.nversion._common_mode import CommonModeFailure, for_family
from pytest_req2rank.nversion._library import LibraryTask
from pytest_req2rank.sandbox import ProcessSandbox

from .conftest import grade_code

FAILURES = load_common_modes()


def test_at_least_ten_kinds_each_for_some_family() -> None:
    assert len(FAILURES) >= 10
    assert len({f.kind for f in FAILURES}) == len(FAILURES)
    assert all(f.families and set(f.families) <= set(FAMILIES) for f in FAILURES)
    assert {f.kind for family in FAMILIES for f in for_family(family)} == {
        f.kind for f in FAILURES}


def _applicable(failure: CommonModeFailure,
                library: tuple[LibraryTask, ...]) -> list[tuple[LibraryTask, str, str]]:
    return [(task, impl.name, impl.code) for task in library for impl in task.implementations
            if failure.applies(impl.code)]


@pytest.mark.parametrize("failure", FAILURES, ids=[f.kind for f in FAILURES])
def test_failure_changes_behaviour(failure: CommonModeFailure, library: tuple[LibraryTask, ...],
                                   task_definitions: dict[str, Task],
                                   sandbox: ProcessSandbox) -> None:
    found = _applicable(failure, library)
    assert found, f"{failure.kind} applies to no library version"
    injected = []
    for task, name, code in found:
        faulty = failure.inject(code)
        assert faulty != code and faulty == failure.inject(code), (task.task_id, name)
        compile(faulty, f"<{failure.kind}>", "exec")
        injected.append((task.task_id, name, faulty))
    for graded, (task_id, name, faulty) in enumerate(injected, 1):  # until one changes
        status, _ = grade_code(task_definitions[task_id], faulty, sandbox)
        if status != "success":
            print(f"\n{failure.kind}: applies to {len(found)} versions; the outcome of "
                  f"{task_id} {name} changed ({status}), grading {graded} of them")
            return
    pytest.fail(f"{failure.kind} changed no version's test outcome")


def test_not_applicable_is_an_error_and_leaves_code_alone() -> None:
    code = "def f(x):\n    return x\n"
    for failure in FAILURES:
        assert not failure.applies(code) and failure.sites(code) == []
        with pytest.raises(NotApplicable, match=failure.kind):
            failure.inject(code)


CASES = {
    "off-by-one": ("for i in range(n):\n    pass", "range(n + 1)"),
    "dropped-last-element": ("for x in xs:\n    pass", "for x in xs[:-1]:"),
    "comparison-strictness": ("if x < n:\n    pass", "if x <= n:"),
    "int-float-division": ("y = n // 2", "y = n / 2"),
    "empty-input": ("if not xs:\n        return 0", "pass"),
    "tie-breaking": ("y = max(xs, key=len)", "max(reversed(list(xs)), key=len)"),
    "unsorted-input": ("y = sorted(xs)", "y = xs"),
    "case-sensitivity": ("y = s.lower()", "y = s\n"),
    "sign-handling": ("y = abs(n)", "y = n\n"),
    "initial-value": ("total = 0", "total = 1"),
    "whitespace-split": ("y = s.split()", "y = s.split(' ')"),
}


@pytest.mark.parametrize("failure", FAILURES, ids=[f.kind for f in FAILURES])
def test_transformation_rewrites_every_site(failure: CommonModeFailure) -> None:
    line, expected = CASES[failure.kind]
    body = "\n".join("    " + part for part in line.split("\n"))
    code = f"def f(xs, n, s, x):\n{body}\n{body}\n    return 0\n"
    faulty = failure.inject(code)
    assert faulty.count(expected) == 2, faulty
    assert len(failure.sites(code)) == 2


def test_docstrings_and_annotations_are_left_alone() -> None:
    (strict,) = [f for f in FAILURES if f.kind == "comparison-strictness"]
    code = 'def f(x: 1 < 2) -> 3 > 4:\n    """x < 1"""\n    return x < 1\n'
    faulty = strict.inject(code)
    assert "x: 1 < 2" in faulty and "-> 3 > 4" in faulty and '"""x < 1"""' in faulty
    assert "return x <= 1" in faulty and len(strict.sites(code)) == 1
