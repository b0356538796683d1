"""Version items of a generation pipeline: version k of a task's :class:`Generation` as an
item result, carrying the task's pipeline record, its own lineage and a 1/N share of the
pipeline's calls, tokens and cost (so a run's totals count each call once)."""

from __future__ import annotations

from datetime import UTC, datetime

from ..models import (
    INFRA_STATUSES,
    ItemResult,
    NVersionRecord,
    Task,
    Timings,
    Usage,
    VersionLineage,
)
from ._pipeline import Generation


def share(usage: Usage, n: int, k: int) -> Usage:
    """Version ``k``'s share of ``usage`` over ``n`` versions (integer counts: the first
    versions take the remainder, so the shares add up)."""

    def part(total: int | None) -> int | None:
        return None if total is None else total // n + (1 if k < total % n else 0)

    return Usage(calls=part(usage.calls) or 0, retries=part(usage.retries) or 0,
                 prompt_tokens=part(usage.prompt_tokens),
                 completion_tokens=part(usage.completion_tokens),
                 reasoning_tokens=part(usage.reasoning_tokens),
                 cost_usd=None if usage.cost_usd is None else usage.cost_usd / n,
                 latency_s=usage.latency_s / n)


def version_result(task: Task, item_id: str, key: str, generation: Generation, k: int, *,
                   n: int, model: str, sandbox: str, worker: str) -> ItemResult:
    """The item result of version ``k`` of ``generation``."""
    record = NVersionRecord(role="version", task=key, versions=n, version=k,
                            generation=generation.record)
    now = datetime.now(UTC).isoformat(timespec="milliseconds")
    seconds = generation.record.seconds / n
    base = ItemResult(item_id=item_id, dataset=task.dataset, task_id=task.task_id, model=model,
                      status="api_error", sandbox=sandbox, worker=worker, started_at=now,
                      finished_at=now, cluster=key, usage=share(generation.usage, n, k),
                      timings=Timings(generation_s=seconds, total_s=seconds))
    if generation.provider_error is not None:
        error = generation.provider_error
        status = "timeout" if error.kind == "timeout" else "api_error"
        return base.model_copy(update={"status": status, "reason": error.message,
                                       "score": 0.0 if status == "timeout" else None,
                                       "nversion": record})
    if k >= len(generation.versions):
        return base.model_copy(update={
            "status": "syntax_error", "score": 0.0, "nversion": record,
            "reason": "format_error: the generation pipeline ended in error before any "
                      f"usable code: {generation.record.reason}"})
    picked = generation.versions[k]
    graded = picked.graded
    candidate, execution = graded.candidate, graded.execution
    lineage = VersionLineage(candidate=candidate.id, thought=candidate.thought,
                             irqn=list(candidate.decisions), irqn_accepted=graded.accepted,
                             repairs=graded.repairs, repaired=graded.passed and graded.repairs > 0,
                             passed=graded.passed)
    record = record.model_copy(update={"lineage": lineage, "repeated": picked.repeated})
    return base.model_copy(update={
        "status": execution.status, "reason": execution.reason, "nversion": record,
        "code": {"solution.py": candidate.code}, "tests": execution.tests,
        "prompt": candidate.prompt, "response": candidate.response,
        "tests_passed": execution.passed, "tests_total": execution.total,
        "pass_ratio": execution.pass_ratio, "judge_time_s": execution.duration_s,
        "score": None if execution.status in INFRA_STATUSES
        else (100.0 if execution.status == "success" else 0.0),
        "timings": Timings(generation_s=seconds, execution_s=execution.duration_s,
                           total_s=seconds + execution.duration_s)})
