"""Turning what happened to one item into its ItemResult (shared by every task form)."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from ..models import INFRA_STATUSES, ExecutionResult, ItemResult, Timings, Usage

FORMAT_ERROR = (
    "format_error: the answer holds no code (no JSON files, no fenced block, and the text is not "
    "Python)"
)


def finish_item(
    result: ItemResult,
    t0: float,
    *,
    status: str,
    reason: str | None,
    usage: Usage | None = None,
    response: str = "",
    code: dict[str, str] | None = None,
    execution: ExecutionResult | None = None,
    generation_s: float | None = None,
) -> ItemResult:
    """The final ItemResult; the score is 100 x solved (dynamic items replace it with the panel's)."""
    total_s = time.perf_counter() - t0
    execution_s = execution.duration_s if execution else 0.0
    update: dict[str, object] = {
        "status": status,
        "reason": reason,
        "usage": usage or Usage(),
        "response": response,
        "code": code or {},
        "timings": Timings(
            generation_s=total_s if generation_s is None else generation_s,
            execution_s=execution_s,
            total_s=total_s,
        ),
        "judge_time_s": execution_s,
        "finished_at": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "score": None if status in INFRA_STATUSES else (100.0 if status == "success" else 0.0),
        "cluster": result.cluster or result.item_id,
    }
    if execution is not None:
        update |= {
            "tests": execution.tests,
            "tests_passed": execution.passed,
            "tests_total": execution.total,
            "pass_ratio": execution.pass_ratio,
            "sandbox": execution.sandbox or result.sandbox,
        }
    return result.model_copy(update=update)
