"""Grading an I/O-form task: one execution of the program per case, stdin in; its stdout is
compared on the host with the case's output, which never enters the sandbox.

Each case's budget follows the reference's time on it (:mod:`._budget`), measured once per
task and cached by content; the first case that runs out of time, or the program's budget
spent, leaves the later cases unrun (``timeout``)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from ..models import IOCase, Task, TestOutcome, TestStatus
from ..sandbox import PYTHON, ExecOutcome, ExecRequest, Sandbox
from ._budget import NOT_RUN, BudgetRule, Budgets
from ._compare import outputs_match
from ._execute import SHOWN_CHARS, execute, process_failure
from ._extract import ENTRY_FILE
from ._recording import ReferenceCache


def case_budgets(task: Task, sandbox: Sandbox, rule: BudgetRule,
                 cache: ReferenceCache) -> Budgets:
    """The cases' budgets, from the reference's times (measured now when not cached); the base
    budgets when the task has no reference or it fails a case."""
    parts = ["io", task.reference, [(case.input, case.output) for case in task.cases]]
    times = cache.times(parts) if task.reference.strip() else None
    if times is None and task.reference.strip():
        tests, _ = case_outcomes({ENTRY_FILE: task.reference}, task.cases, sandbox,
                                 budgets=rule.for_reference().unknown(len(task.cases)))
        if all(test.status == "success" for test in tests):
            times = tuple(test.duration_s for test in tests)
            cache.keep_times(parts, times)
    if times is None:
        return rule.unknown(len(task.cases))
    return rule.budgets(times)


def case_outcomes(files: dict[str, str], cases: Sequence[IOCase], sandbox: Sandbox, *,
                  budgets: Budgets) -> tuple[list[TestOutcome], float]:
    """Each case's outcome, and the sandbox time."""
    tests: list[TestOutcome] = []
    duration = 0.0
    stopped = ""
    for index, case in enumerate(cases):
        shown = partial(TestOutcome, name=f"case[{index}]", input=case.input[:SHOWN_CHARS],
                        expected=case.output[:SHOWN_CHARS])
        budget = min(budgets.tests[index], budgets.program_s - duration)
        if stopped or budget <= 0:
            tests.append(shown(status="timeout", detail=stopped or (
                "not run: the program's time budget was spent")))
            continue
        request = ExecRequest(files=files, argv=(PYTHON, ENTRY_FILE), stdin=case.input,
                              timeout_s=budget)
        outcome = execute(sandbox, request)
        duration += outcome.duration_s
        status, detail = _verdict(outcome, case)
        if status == "timeout":
            stopped = NOT_RUN
        tests.append(shown(status=status, detail=detail,
                           actual=outcome.stdout[:SHOWN_CHARS], duration_s=outcome.duration_s))
    return tests, duration


def _verdict(outcome: ExecOutcome, case: IOCase) -> tuple[TestStatus, str]:
    if outcome.output_truncated:
        return "wrong_answer", "output limit exceeded"
    failure = process_failure(outcome)
    if failure is not None:
        return failure
    if outputs_match(outcome.stdout, case.output):
        return "success", ""
    return "wrong_answer", "output differs from the expected output"
