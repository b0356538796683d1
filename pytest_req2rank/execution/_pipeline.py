"""One item, start to finish: prompt the target, extract the code, grade it in the sandbox."""

from __future__ import annotations

import time
from datetime import datetime, timezone

from pydantic import BaseModel, ConfigDict

from ..models import INFRA_STATUSES, ExecutionResult, ItemResult, Task, Timings, Usage
from ..providers import Completion, CompletionRequest, Provider, ProviderConfigError, ProviderError
from ..sandbox import Sandbox
from ._extract import extract_code
from ._grading import grade
from ._prompts import build_messages


class RunOptions(BaseModel):
    """The per-item knobs taken from the settings."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_tokens: int = 2048
    temperature: float = 0.0
    seed: int | None = None
    api_timeout_s: float = 120.0
    sandbox_timeout_s: float = 5.0
    worker: str = "main"


def run_task(task: Task, provider: Provider, sandbox: Sandbox, options: RunOptions) -> ItemResult:
    """Benchmark ``provider`` on ``task``. Never raises for model or provider failures."""
    started = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    messages = build_messages(task)
    prompt = messages[-1].content
    request = CompletionRequest(
        messages=messages,
        max_tokens=options.max_tokens,
        temperature=options.temperature,
        seed=options.seed,
        timeout_s=options.api_timeout_s,
        task=task,
    )
    result = ItemResult(
        item_id=task.item_id,
        dataset=task.dataset,
        task_id=task.task_id,
        model=provider.model,
        status="api_error",
        prompt=prompt,
        sandbox=sandbox.name,
        worker=options.worker,
        started_at=started.isoformat(timespec="milliseconds"),
    )
    try:
        completion = provider.complete(request)
    except ProviderError as exc:
        status = "timeout" if exc.kind == "timeout" else "api_error"
        usage = Usage(calls=exc.attempts, retries=max(exc.attempts - 1, 0))
        return _finish(result, t0, status=status, reason=exc.message, usage=usage)
    except ProviderConfigError as exc:
        return _finish(result, t0, status="api_error", reason=str(exc))
    generation_s = time.perf_counter() - t0
    usage = _usage(completion)

    extracted = extract_code(
        completion.text,
        entry_point=task.entry_point,
        prompt=task.prompt,
        assume_code=bool(completion.raw.get("verbatim_code")),
    )
    if extracted is None:
        return _finish(
            result, t0, status="syntax_error", usage=usage, response=completion.text,
            generation_s=generation_s,
            reason="format_error: the answer holds no code (no JSON files, no fenced block, "
            "and the text is not Python)",
        )
    execution = grade(task, extracted.files, sandbox, timeout_s=options.sandbox_timeout_s)
    return _finish(
        result, t0, status=execution.status, reason=execution.reason, usage=usage,
        response=completion.text, code=extracted.files, execution=execution,
        generation_s=generation_s,
    )


def _usage(completion: Completion) -> Usage:
    return Usage(
        calls=completion.attempts,
        retries=completion.attempts - 1,
        prompt_tokens=completion.prompt_tokens,
        completion_tokens=completion.completion_tokens,
        cost_usd=completion.cost_usd,
        latency_s=completion.latency_s,
    )


def _finish(
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
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
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
