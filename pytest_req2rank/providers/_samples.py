"""``r2r/samples:PATH``: grades existing completions from a JSONL samples file, offline."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from ..jsonl import JsonlError, Line, read_jsonl
from ..models import SAMPLES_PREFIX
from ._base import Completion, CompletionRequest, Provider, ProviderConfigError, ProviderError

_LINE_HINT = 'each line must be a JSON object like {"task_id": "HumanEval/0", "completion": "..."}'
_SHOWN_IDS = 5


class Sample(NamedTuple):
    """One completion of a samples file, and why it ended when the file says
    (``finish_reason`` ``length``: cut by the token limit)."""

    completion: str
    finish_reason: str | None = None


def load_samples(path: Path) -> dict[str, list[Sample]]:
    """Read a samples file into ``{task_id: [sample, ...]}``, each task's completions in
    file order (sample k is its k-th line); raise ProviderConfigError on any flaw,
    at ``FILE:LINE:COLUMN``. Lines are limited to :data:`~pytest_req2rank.jsonl.MAX_LINE_BYTES`.

    Lines follow the human-eval / EvalPlus convention: ``task_id`` and
    ``completion`` (or EvalPlus's ``solution`` when there is no ``completion``), with an
    optional ``finish_reason`` (a string; ``length`` marks an answer cut by the token
    limit, as a results JSON's items record it); other keys are ignored. Tasks may have
    different numbers of samples (as in human-eval).
    """
    samples: dict[str, list[Sample]] = {}
    try:
        for line, record in read_jsonl(path):
            task_id, sample = _parse_line(record, line)
            samples.setdefault(task_id, []).append(sample)
    except JsonlError as exc:
        if exc.missing:
            raise ProviderConfigError(
                f"{path}: samples file not found; pass r2r/samples:PATH with an existing JSONL "
                "file (a relative path starts from the directory pytest was invoked in)"
            ) from None
        raise ProviderConfigError(f"{exc}; {_LINE_HINT}") from None
    if not samples:
        raise ProviderConfigError(f"{path}: the samples file holds no samples; {_LINE_HINT}")
    return samples


def _parse_line(record: Any, line: Line) -> tuple[str, Sample]:
    if not isinstance(record, dict):
        raise ProviderConfigError(
            f"{line.where()}: expected a JSON object, got {type(record).__name__}; {_LINE_HINT}"
        )
    task_id = record.get("task_id")
    if isinstance(task_id, int) and not isinstance(task_id, bool):
        task_id = str(task_id)
    if not isinstance(task_id, str) or not task_id.strip():
        problem = "missing" if task_id is None else f"must be a non-empty string, got {task_id!r}"
        raise ProviderConfigError(
            f'{line.where("task_id")}: "task_id" {problem}; '
            "add the id of the task this completion answers"
        )
    key = "completion" if "completion" in record else "solution"
    completion = record.get(key)
    if completion is None:
        raise ProviderConfigError(
            f'{line.where(key)}: missing "completion" (or "solution") for task {task_id!r}; '
            "add the model's answer as a string"
        )
    if not isinstance(completion, str):
        raise ProviderConfigError(
            f'{line.where(key)}: "{key}" must be a string, got {type(completion).__name__}; '
            "put the model's answer in one JSON string"
        )
    finish_reason = record.get("finish_reason")
    if finish_reason is not None and not isinstance(finish_reason, str):
        raise ProviderConfigError(
            f'{line.where("finish_reason")}: "finish_reason" must be a string such as "length", '
            f"got {type(finish_reason).__name__}; leave it out when the answer was not cut"
        )
    return task_id, Sample(completion, finish_reason)


class SamplesProvider(Provider):
    """Answers each task with its completions from a samples file, read and checked up front.

    The answer is the completion text as stored (a body-only human-eval completion stays
    body-only; a reasoning model's reasoning is taken out, as from any provider), ending with
    the line's ``finish_reason``. A request for sample k of a task gets the task's k-th
    completion in file order; :meth:`counts` says how many each task has (a run plans
    one item per completion).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.model = f"{SAMPLES_PREFIX}{path}"
        self.samples = load_samples(self.path)

    @property
    def offline(self) -> bool:
        return True

    def check_covers(self, task_ids: Iterable[str]) -> None:
        """Raise ProviderConfigError unless every planned task has a completion."""
        planned = list(dict.fromkeys(task_ids))
        missing = [task_id for task_id in planned if task_id not in self.samples]
        if not missing:
            return
        shown = ", ".join(missing[:_SHOWN_IDS]) + (", …" if len(missing) > _SHOWN_IDS else "")
        raise ProviderConfigError(
            f"{len(missing)} of the {len(planned)} planned tasks have no completion in "
            f"{self.path}: {shown}; add a {{\"task_id\", \"completion\"}} line for each, "
            "or pass a --r2r-suite=jsonl:PATH that holds only the tasks the file covers"
        )

    def counts(self) -> dict[str, int]:
        """The number of completions of each task in the file."""
        return {task_id: len(completions) for task_id, completions in self.samples.items()}

    def complete(self, request: CompletionRequest) -> Completion:
        if request.task is None:
            raise ProviderError(
                "api_error", f"{self.model} answers benchmark tasks only, and this request carries no task"
            )
        completions = self.samples.get(request.task.task_id, [])
        if request.sample >= len(completions):
            which = (f"sample {request.sample} (it holds {len(completions)})" if completions
                     else "completion")
            raise ProviderError(
                "api_error",
                f"{self.path} has no {which} for task {request.task.task_id!r}; add a "
                f'{{"task_id": {json.dumps(request.task.task_id)}, "completion": ...}} line',
            )
        sample = completions[request.sample]
        raw: dict[str, Any] = {"verbatim_code": True}
        if sample.finish_reason is not None:
            raw["finish_reason"] = sample.finish_reason
        return Completion(text=sample.completion, model=self.model, raw=raw)
