"""One item, start to finish: prompt the target, extract the code, grade it in the sandbox."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field

from ..draws import sample_seed
from ..models import ExecutionResult, ItemResult, Task, Usage
from ..providers import CompletionRequest, Provider, ProviderConfigError, ProviderError
from ..sandbox import Sandbox
from ._extract import ExtractedCode, extract_code
from ._grading import grade, program_files
from ._instrument import ask
from ._outcome import finish_answer, finish_item
from ._prompts import build_messages


class RunOptions(BaseModel):
    """The per-item knobs taken from the settings."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_tokens: int = 2048
    temperature: float = 0.0
    seed: int | None = Field(default=None, description="The run seed; sample k of a task is "
                             "asked with draws.sample_seed(seed, k)")
    api_timeout_s: float = 120.0
    sandbox_timeout_s: float = 5.0
    worker: str = "main"


def run_task(task: Task, provider: Provider, sandbox: Sandbox, options: RunOptions) -> ItemResult:
    """Benchmark ``provider`` on ``task``. Never raises for model or provider failures."""
    started = datetime.now(UTC)
    t0 = time.perf_counter()
    messages = build_messages(task)
    prompt = messages[-1].content
    request = CompletionRequest(
        messages=messages,
        max_tokens=options.max_tokens,
        temperature=options.temperature,
        seed=sample_seed(options.seed, task.sample or 0),
        timeout_s=options.api_timeout_s,
        task=task,
        sample=task.sample or 0,
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
        sample=task.sample,
        cluster=task.task_item_id,  # the samples of a task are one cluster
    )
    def graded(files: dict[str, str]) -> ExecutionResult:
        return grade(task, files, sandbox, timeout_s=options.sandbox_timeout_s)

    def extracted_from(text: str, verbatim: bool = False) -> ExtractedCode | None:
        return extract_code(text, entry_point=task.entry_point, prompt=task.prompt,
                            assume_code=verbatim)

    try:
        completion = ask(provider, request, grade=graded, extract=extracted_from)
    except ProviderError as exc:
        status = "timeout" if exc.kind == "timeout" else "api_error"
        usage = Usage(calls=exc.attempts, retries=max(exc.attempts - 1, 0))
        return finish_item(result, t0, status=status, reason=exc.message, usage=usage)
    except ProviderConfigError as exc:
        return finish_item(result, t0, status="api_error", reason=str(exc))
    generation_s = time.perf_counter() - t0
    extracted = extracted_from(completion.text, bool(completion.raw.get("verbatim_code")))
    return finish_answer(
        result, t0, completion, extracted, generation_s=generation_s,
        program=lambda files: program_files(task, files), grade=graded,
    )
