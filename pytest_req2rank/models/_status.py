"""Statuses of a test, an execution and an item."""

from __future__ import annotations

from typing import Literal, get_args

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
