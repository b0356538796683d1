"""Statuses of a test, an execution and an item, and a problem's final status from its tests'
statuses (ARCHITECTURE.md, Metrics 3.1 and 3.2)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal, get_args

Status = Literal[
    "success",
    "wrong_answer",
    "syntax_error",
    "runtime_error",
    "timeout",
    "truncated",
    "api_error",
    "sandbox_error",
]
"""Final status of an item (ARCHITECTURE.md, Metrics 3.1). ``truncated``: the answer was cut
by the token limit before its code was complete (an item status, never a test's)."""

TestStatus = Literal["success", "wrong_answer", "syntax_error", "runtime_error", "timeout"]
"""Outcome of one test case; the model's own doing only."""

STATUSES: tuple[Status, ...] = get_args(Status)
INFRA_STATUSES: tuple[Status, ...] = ("api_error", "sandbox_error")
"""Statuses caused by infrastructure: reported, never counted against the model."""
MODEL_STATUSES: tuple[Status, ...] = tuple(s for s in STATUSES if s not in INFRA_STATUSES)
"""Statuses of the model's own doing: the test statuses and ``truncated``."""

FINAL_STATUS_PRIORITY: Final[tuple[TestStatus, ...]] = (
    "syntax_error",
    "runtime_error",
    "timeout",
    "wrong_answer",
    "success",
)
"""Most severe first: the first one any test case has decides the problem."""

STATUS_ALIASES: Final[dict[str, TestStatus]] = {
    "success": "success",
    "wrong_answer": "wrong_answer",
    "syntax_error": "syntax_error",
    "compile_error": "syntax_error",
    "compile_timeout": "syntax_error",
    "runtime_error": "runtime_error",
    "timeout": "timeout",
}
"""Test-case status spellings the spec knows; anything else counts as ``runtime_error``."""


def normalize_test_status(status: str) -> TestStatus:
    """Map one test case's status onto the five the spec ranks.

    ``compile_error`` and ``compile_timeout`` are syntax errors; ``api_error``,
    ``sandbox_error`` and any unknown status are runtime errors, as Metrics 3.2
    classifies them (``else: has_runtime = True``).
    """
    return STATUS_ALIASES.get(status, "runtime_error")


def final_status(test_statuses: Iterable[str]) -> TestStatus:
    """The final status of one problem from all its test cases' statuses.

    Priority (Metrics 3.2): syntax_error > runtime_error > timeout > wrong_answer >
    success, so a problem is ``success`` only when every test case succeeded. An item whose
    answer was cut before its code was complete is ``truncated`` without any test run
    (Metrics 3.1): that status is decided before this one, never from tests.
    The spec's ``'unknown'`` result needs a boolean result code that disagrees
    with the status string; from status strings alone it cannot arise.

    Raises ``ValueError`` for no test cases at all: a problem without tests
    cannot be judged, and calling it a success would reward a broken suite.
    """
    seen = {normalize_test_status(status) for status in test_statuses}
    if not seen:
        raise ValueError("final_status() needs at least one test status; the problem has no tests")
    return next(status for status in FINAL_STATUS_PRIORITY if status in seen)
