"""Grading an I/O-form task: one execution of the program per case, stdin in; its stdout is
compared on the host with the case's output, which never enters the sandbox."""

from __future__ import annotations

from collections.abc import Sequence

from ..models import IOCase, TestOutcome, TestStatus
from ..sandbox import PYTHON, ExecOutcome, ExecRequest, Sandbox
from ._compare import outputs_match
from ._execute import SHOWN_CHARS, execute, process_failure
from ._extract import ENTRY_FILE


def case_outcomes(files: dict[str, str], cases: Sequence[IOCase], sandbox: Sandbox, *,
                  timeout_s: float) -> tuple[list[TestOutcome], float]:
    """Each case's outcome, and the sandbox time."""
    tests: list[TestOutcome] = []
    duration = 0.0
    for index, case in enumerate(cases):
        request = ExecRequest(files=files, argv=(PYTHON, ENTRY_FILE), stdin=case.input,
                              timeout_s=timeout_s)
        outcome = execute(sandbox, request)
        duration += outcome.duration_s
        status, detail = _verdict(outcome, case)
        tests.append(TestOutcome(
            name=f"case[{index}]", status=status, detail=detail,
            input=case.input[:SHOWN_CHARS], expected=case.output[:SHOWN_CHARS],
            actual=outcome.stdout[:SHOWN_CHARS], duration_s=outcome.duration_s,
        ))
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
