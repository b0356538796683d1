"""One dynamic item: the target writes the requirement's files, hidden probes grade them."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from ..draws import sample_seed
from ..models import (
    COMPLEXITIES,
    INFRA_STATUSES,
    ExecutionResult,
    ItemResult,
    ProjectRequirement,
    Task,
    pass_ratio_by_priority,
    weighted_pass_ratio,
)
from ..providers import CompletionRequest, Provider, ProviderConfigError, ProviderError
from ..sandbox import Sandbox
from ._extract import ExtractedCode, extract_code
from ._grading import grade_probes
from ._instrument import ask
from ._outcome import finish_answer, finish_item
from ._pipeline import RunOptions
from ._prompts import requirement_messages


def run_requirement(
    task: Task,
    requirement: ProjectRequirement,
    provider: Provider,
    sandbox: Sandbox,
    options: RunOptions,
) -> ItemResult:
    """Benchmark ``provider`` on one requirement. Never raises for model or provider failures.

    The API timeout and output budget come from the requirement's complexity
    (C1 30 s / 4K tokens … C4 180 s / 32K). The item's score is the
    priority-weighted probe pass ratio x 100; a judge panel may refine it later.
    """
    started = datetime.now(UTC)
    t0 = time.perf_counter()
    level = COMPLEXITIES[requirement.metadata.complexity]
    brief = requirement.brief()
    messages = requirement_messages(brief)
    result = ItemResult(
        item_id=task.item_id, dataset=task.dataset, task_id=task.task_id, model=provider.model,
        status="api_error", prompt=messages[-1].content, sandbox=sandbox.name,
        worker=options.worker, started_at=started.isoformat(timespec="milliseconds"),
        kind="dynamic", complexity=level.code, requirement=brief, cluster=requirement.id,
        sample=task.sample,
    )
    request = CompletionRequest(
        messages=messages, max_tokens=level.max_tokens, temperature=options.temperature,
        seed=sample_seed(options.seed, task.sample or 0), timeout_s=level.timeout_s,
        json_mode=True, task=task, sample=task.sample or 0,
    )
    main_file = next(iter(requirement.reference)) if len(requirement.reference) == 1 else None

    def graded(files: dict[str, str]) -> ExecutionResult:
        return grade_probes(files, requirement.probes, sandbox,
                            timeout_s=options.sandbox_timeout_s, setup=requirement.setup,
                            reference=requirement.reference)

    def extracted_from(text: str) -> ExtractedCode | None:
        return extract_code(text, file_name=main_file or "solution.py")

    try:
        completion = ask(provider, request, grade=graded, extract=extracted_from)
    except ProviderError as exc:
        status = "timeout" if exc.kind == "timeout" else "api_error"
        return finish_item(result, t0, status=status, reason=exc.message)
    except ProviderConfigError as exc:
        return finish_item(result, t0, status="api_error", reason=str(exc))
    generation_s = time.perf_counter() - t0
    item = finish_answer(
        result, t0, completion, extracted_from(completion.text), generation_s=generation_s,
        program=lambda files: files, grade=graded,
    )
    if item.status in INFRA_STATUSES or not item.tests:
        return item
    priorities = {probe.name: probe.priority for probe in requirement.probes}
    by_priority = pass_ratio_by_priority(item.tests, priorities)
    return item.model_copy(update={
        "pass_ratio_by_priority": by_priority,
        "score": round(100 * weighted_pass_ratio(by_priority, item.tests, priorities), 2),
    })
