"""Test-driven repair: a failing version is graded, its failing tests and errors are fed back,
and the model's fix is graded again, at most K times. A version that never passes is kept
as it ends, failing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..models import INFRA_STATUSES, ExecutionResult

MAX_FAILURES = 5
"""Failing tests fed back per repair prompt."""
MAX_DETAIL = 300
"""Characters of one failure's detail fed back."""

Grader = Callable[[str], ExecutionResult]
Fixer = Callable[[str, list[str]], str]
"""Asks the model to fix ``code`` given its failures; returns the new code."""


@dataclass(frozen=True)
class Repaired:
    code: str
    execution: ExecutionResult
    iterations: int


def failures(execution: ExecutionResult) -> list[str]:
    """What a repair prompt is told: the first failing tests with their status and detail."""
    found = [f"{t.name}: {t.status}" + (f": {t.detail[:MAX_DETAIL]}" if t.detail else "")
             for t in execution.tests if t.status != "success"][:MAX_FAILURES]
    return found or [f"{execution.status}: {(execution.reason or '')[:MAX_DETAIL]}"]


def repair(code: str, execution: ExecutionResult, *, grade: Grader, fix: Fixer,
           max_iterations: int) -> Repaired:
    """Repair ``code`` (graded ``execution``) until it passes or ``max_iterations`` fixes were
    tried; an infrastructure failure of the sandbox stops it (not the code's fault)."""
    iterations = 0
    while (execution.status != "success" and execution.status not in INFRA_STATUSES
           and iterations < max_iterations):
        code = fix(code, failures(execution))
        iterations += 1
        execution = grade(code)
    return Repaired(code=code, execution=execution, iterations=iterations)
