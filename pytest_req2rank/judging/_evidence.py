"""Reading the execution evidence: pass ratios overall and by priority, crashes."""

from __future__ import annotations

from collections.abc import Mapping

from ..models import (
    MODEL_STATUSES,
    ExecutionResult,
    Priority,
    pass_ratio_by_priority,
    weighted_pass_ratio,
)

MODEL_FAILURES = frozenset(MODEL_STATUSES) - {"success"}
"""Execution statuses that are the code's fault: with no test outcome, the pass ratio is 0."""
ROBUSTNESS_PRIORITIES = ("should", "nice")
"""Priorities of the probes that check edge cases and robustness rather than the core."""
CRASHES = frozenset({"syntax_error", "runtime_error", "timeout"})
"""Test statuses where the code did not even produce an answer."""


def execution_ratio(
    execution: ExecutionResult | None, priorities: Mapping[str, Priority]
) -> float | None:
    """The priority-weighted pass ratio (0-1); 0 when the code failed before any test.

    ``None`` means no test applied (no execution, or an infrastructure status).
    """
    if execution is None:
        return None
    if execution.tests:
        by_priority = pass_ratio_by_priority(execution.tests, dict(priorities))
        return weighted_pass_ratio(by_priority, execution.tests, dict(priorities))
    return 0.0 if execution.status in MODEL_FAILURES else None


def ratios_by_priority(
    execution: ExecutionResult, priorities: Mapping[str, Priority]
) -> dict[str, float]:
    """Pass ratio of each priority that has tests (tests without a priority are ``must``)."""
    return pass_ratio_by_priority(execution.tests, dict(priorities))


def robustness_ratio(
    execution: ExecutionResult, priorities: Mapping[str, Priority]
) -> float | None:
    """The weighted pass ratio of the should/nice tests (the edge-case probes), if there are any."""
    tests = [t for t in execution.tests if priorities.get(t.name, "must") in ROBUSTNESS_PRIORITIES]
    return weighted_pass_ratio({}, tests, dict(priorities)) if tests else None


def crash_share(execution: ExecutionResult) -> float:
    """Share of the tests that crashed or timed out; 1 when the code failed before any test."""
    if not execution.tests:
        return 1.0 if execution.status in CRASHES else 0.0
    return sum(t.status in CRASHES for t in execution.tests) / len(execution.tests)
