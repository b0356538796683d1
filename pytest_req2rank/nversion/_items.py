"""N-version items, usable without pytest: which items a task gets, the built-in model that
answers versions from the library, and the evaluation of a version and of an ensemble check.

A task ``DATASET/TASK`` of the suite becomes the items ``nversion/TASK/v0`` … ``v{N-1}``
(a remote model's versions come from the generation pipeline, run once per task by the
first of its version items to be evaluated: :mod:`._pipeline`; with the ``plain`` method, or
the built-in model, each asks once for a version, with the version's sample index and seed)
and ``nversion/TASK/Pat-CL0``
… ``Pat-AL4`` (one per fault pattern asked for: the pattern injected into the N versions,
which are then voted on).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime

from ..execution import ReferenceCache, RunOptions, SandboxFailed, Ungradable, run_task
from ..models import (
    INFRA_STATUSES,
    NVERSION_DATASET,
    REFERENCE_MODEL,
    GenerationConfig,
    ItemId,
    ItemIdError,
    ItemResult,
    NVersionRecord,
    Status,
    Task,
    Timings,
)
from ..providers import Completion, CompletionRequest, Provider, ProviderError
from ..sandbox import Sandbox
from ._common_mode import CommonModeFailure, for_family, load_common_modes
from ._diversity import STRUCTURAL, ls, structural_similarity
from ._experiment import TIMEOUT_S, TaskBench, run_experiment
from ._faults import ALGORITHM_LEVEL, CODE_LEVEL, Pattern
from ._generated import version_result
from ._irqn import Similarity, structural_pair
from ._knowledge import KnowledgeBase, load_knowledge
from ._library import LibraryTask
from ._pipeline import Generation, GenerationPipeline
from ._semantic import (
    SDP_NOT_MEASURED,
    EmbeddingSimilarity,
    SemanticMeasures,
    embedding_similarity,
    measure_mbcs,
    measure_sdp,
)

FAMILY_PATTERNS = {"code": CODE_LEVEL, "algorithm": ALGORITHM_LEVEL}
"""The patterns of each fault family of ``--r2r-faults``."""


def patterns_of(families: Iterable[str]) -> tuple[Pattern, ...]:
    """The fault patterns of ``families`` (``code``, ``algorithm``), in that order."""
    chosen = set(families)
    return tuple(p for family, patterns in FAMILY_PATTERNS.items() if family in chosen
                 for p in patterns)


def task_key(task: Task) -> str:
    """The N-version id of ``task``'s task: ``humaneval/HumanEval_12`` → ``nversion/HumanEval_12``
    (an N-version item's task: ``nversion/HumanEval_12/v3`` → ``nversion/HumanEval_12``)."""
    return str(ItemId.parse(task.item_id).nversion_task)


def nversion_tasks(tasks: Sequence[Task], n: int, patterns: Sequence[Pattern]) -> list[Task]:
    """The items of an N-version run over ``tasks`` (function form), in run order: per task,
    its ``n`` versions, then one ensemble check per pattern."""
    items: list[Task] = []
    for task in tasks:
        own = ItemId.parse(task.item_id)
        ids = [own.with_version(k) for k in range(n)] + [own.with_pattern(p.name) for p in patterns]
        items += [task.model_copy(update={"item_id": str(item_id), "dataset": NVERSION_DATASET})
                  for item_id in ids]
    return items


def library_tasks(tasks: Sequence[Task], library: Iterable[LibraryTask]) -> list[Task]:
    """The tasks of ``tasks`` the library holds, in suite order (the built-in model's tasks)."""
    held = {entry.task_id for entry in library}
    return [task for task in tasks if task.task_id in held]


def repeated_tasks(task_ids: Iterable[str], n: int, library: Mapping[str, LibraryTask]
                   ) -> dict[str, int]:
    """The tasks whose library has fewer than ``n`` distinct implementations, with their count."""
    return {task_id: len(library[task_id].implementations) for task_id in task_ids
            if task_id in library and len(library[task_id].implementations) < n}


class LibraryProvider(Provider):
    """The built-in model of an N-version run: answers version k of a task (the request's
    sample index) with the library's implementation k mod their count, offline."""

    model = REFERENCE_MODEL

    def __init__(self, library: Mapping[str, LibraryTask]) -> None:
        self.library = library

    @property
    def offline(self) -> bool:
        return True

    def complete(self, request: CompletionRequest) -> Completion:
        entry = self.library.get(request.task.task_id) if request.task is not None else None
        if entry is None:
            raise ProviderError("api_error", f"{REFERENCE_MODEL} answers N-version requests from "
                                "its library, which does not hold this task")
        code = implementation(entry, request.sample)[1]
        return Completion(text=f"```python\n{code.rstrip()}\n```\n", model=self.model)


def implementation(entry: LibraryTask, version: int) -> tuple[str, str]:
    """The name and code of version ``version`` of a library task (repeats past the last)."""
    chosen = entry.implementations[version % len(entry.implementations)]
    return chosen.name, chosen.code


class NVersionEvaluator:
    """Evaluates N-version items on one process: keeps each task's versions in memory (asking
    again, through the same provider, for a version it lacks: a resumed run's cache answers)
    and one experiment bench per task. Thread-safe: items may be evaluated ahead."""

    def __init__(self, provider: Provider, sandbox: Sandbox, options: RunOptions, *, n: int,
                 library: Mapping[str, LibraryTask], builtin: bool,
                 common_mode: Sequence[CommonModeFailure] | None = None,
                 measures: SemanticMeasures | None = None,
                 generation: GenerationConfig | None = None,
                 similarity: Similarity | None = None,
                 knowledge: KnowledgeBase | None = None) -> None:
        self.provider, self.sandbox, self.options, self.n = provider, sandbox, options, n
        self.library, self.builtin = library, builtin
        self.generation = generation or GenerationConfig()
        self.similarity = similarity
        self._knowledge = knowledge
        self._generations: dict[str, Generation] = {}
        self.common_mode = tuple(common_mode if common_mode is not None else load_common_modes())
        self.timeout_s = min(TIMEOUT_S, options.sandbox_timeout_s)
        self.cache = ReferenceCache()
        self._versions: dict[tuple[str, int], ItemResult] = {}
        self._benches: dict[str, TaskBench] = {}
        self.measures = measures or SemanticMeasures()
        self._diversity: dict[str, dict[str, object]] = {}
        self._locks: dict[object, threading.Lock] = {}
        self._guard = threading.Lock()
        self._t0: dict[str, float] = {}

    def _lock(self, key: object) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())

    def evaluate(self, task: Task) -> ItemResult:
        """The result of the N-version item ``task`` (a version or an ensemble check)."""
        item_id = ItemId.parse(task.item_id)
        if item_id.version is not None:
            return self.version(task, item_id.version)
        if item_id.pattern is None:
            raise ItemIdError(f"{item_id}: an N-version item is a version (vK) or an ensemble "
                             "check (Pat-XXk)")
        return self.ensemble(task, Pattern.parse(item_id.pattern))

    def version(self, task: Task, version: int) -> ItemResult:
        """Version ``version`` of ``task``: asked once per process, then kept."""
        key = (task_key(task), version)
        with self._lock(key):
            known = self._versions.get(key)
            if known is None:
                known = self._versions[key] = self._ask(task, version)
            return known

    def remember(self, result: ItemResult) -> None:
        """Keep a version evaluated elsewhere (a resumed run's stored item)."""
        record = result.nversion
        if record is not None and record.role == "version" and record.version is not None:
            self._versions.setdefault((record.task, record.version), result)
        if (record is not None and record.role == "ensemble" and record.diversity is not None
                and record.sdp is not None and record.mbcs is not None
                and not record.sdp.call_failures and record.mbcs.status != "failed"):
            # measured, or not measured for want of a model: kept; a failed call is retried
            self._diversity.setdefault(record.task, {
                "diversity": record.diversity, "sdp": record.sdp, "mbcs": record.mbcs})

    @property
    def pipelined(self) -> bool:
        """Whether versions come from the generation pipeline (a remote model's, by default)."""
        return not self.builtin and self.generation.method == "pipeline"

    def generated(self, task: Task) -> Generation:
        """The pipeline's versions of ``task``: run by the first version asked, then kept."""
        key = task_key(task)
        with self._lock(("generation", key)):
            known = self._generations.get(key)
            if known is None:
                if self._knowledge is None:
                    self._knowledge = load_knowledge()
                entry = self.library.get(task.task_id)
                similarity, embedded = self._pipeline_similarity()
                pipeline = GenerationPipeline(
                    task.model_copy(update={"item_id": key, "sample": None}), self.provider,
                    self.sandbox, self.options, n=self.n, config=self.generation,
                    knowledge=self._knowledge, similarity=similarity,
                    family=entry.family if entry is not None else None, cache=self.cache)
                known = pipeline.run()
                if embedded is not None:  # IRQN's embedding calls are the task's too
                    known.usage = known.usage + embedded.usage
                self._generations[key] = known
            return known

    def _pipeline_similarity(self) -> tuple[Similarity, EmbeddingSimilarity | None]:
        """The similarity IRQN and collection judge programs by: the one given, else the
        embedding model's cosine when one is configured (one instance per task, to count its
        calls), else the offline structural similarity."""
        if self.similarity is not None:
            return self.similarity, None
        if self.measures.embedder is None:
            return structural_pair, None
        embedded = embedding_similarity(self.measures.embedder, timeout_s=self.measures.timeout_s)
        return (lambda a, b: embedded(a, [b])), embedded

    def _ask(self, task: Task, version: int) -> ItemResult:
        item_id = str(ItemId.parse(task.item_id).with_version(version))
        if self.pipelined:
            return version_result(task, item_id, task_key(task), self.generated(task), version,
                                  n=self.n, model=self.provider.model, sandbox=self.sandbox.name,
                                  worker=self.options.worker)
        asked = task.model_copy(update={"item_id": item_id, "sample": version})
        result = run_task(asked, self.provider, self.sandbox, self.options)
        entry = self.library.get(task.task_id) if self.builtin else None
        name = implementation(entry, version)[0] if entry is not None else None
        record = NVersionRecord(
            role="version", task=task_key(task), versions=self.n, version=version,
            implementation=name,
            repeated=entry is not None and version >= len(entry.implementations))
        return result.model_copy(update={"sample": None, "cluster": task_key(task),
                                         "nversion": record})

    def ensemble(self, task: Task, pattern: Pattern) -> ItemResult:
        """Pattern ``pattern`` injected into ``task``'s N versions, voted on: success when the
        voted output is correct on every input."""
        key = task_key(task)
        started = datetime.now(UTC).isoformat(timespec="milliseconds")
        self._t0[task.item_id] = time.perf_counter()
        record = NVersionRecord(role="ensemble", task=key, versions=self.n, pattern=pattern.name)
        versions = [self.version(task, k) for k in range(self.n)]
        lost = next((v for v in versions if v.status in INFRA_STATUSES), None)
        if lost is not None:
            assert lost.nversion is not None
            return self._result(task, record, started, status=lost.status,
                                reason=f"version {lost.nversion.version} has no code: "
                                       f"{lost.status} ({lost.reason})")
        codes = [v.code.get("solution.py", "") for v in versions]
        base = task.model_copy(update={"item_id": key})  # one task for all its patterns
        with self._lock(key):
            try:
                bench = self._benches.get(key)
                if bench is None:
                    bench = self._benches[key] = TaskBench(
                        base, self.sandbox, seed=self._seed, timeout_s=self.timeout_s,
                        cache=self.cache)
                experiment = run_experiment(
                    base, codes, self.sandbox, seed=self._seed, patterns=[pattern],
                    common_mode=self._failures(task), timeout_s=self.timeout_s,
                    cache=self.cache, bench=bench)
            except (SandboxFailed, Ungradable, ValueError) as exc:
                return self._result(task, record, started, status="sandbox_error",
                                    reason=f"the experiment could not run: {exc}")
            diversity = self._diversity_of(key, codes, task.prompt)
        run = experiment.runs[0]
        vote = run.outcome.vote
        right = sum(v.correct for v in vote.votes)
        undecided = sum(not v.consensus for v in vote.votes)
        reason = None
        if not vote.correct:
            reason = (f"{run.pattern}: the vote is wrong on {len(vote.votes) - right} of "
                      f"{len(vote.votes)} inputs ({undecided} without a strict majority); "
                      f"faults {len(run.injection.faults)}, failing versions "
                      f"{run.outcome.failing} of {self.n}")
        record = record.model_copy(update={
            "run": run.model_dump(mode="json"), "inputs": experiment.inputs,
            "reference_raised": experiment.reference_raised, **diversity})
        return self._result(task, record, started,
                            status="success" if vote.correct else "wrong_answer", reason=reason,
                            passed=right, total=len(vote.votes))

    @property
    def _seed(self) -> int:
        return self.options.seed or 0

    def _failures(self, task: Task) -> tuple[CommonModeFailure, ...]:
        """The common-mode failures of the task's family (all of them for a task the
        library does not classify)."""
        entry = self.library.get(task.task_id)
        if entry is None:
            return self.common_mode
        return for_family(entry.family, self.common_mode)

    def _diversity_of(self, key: str, codes: list[str], requirement: str) -> dict[str, object]:
        """The record fields of the versions' diversity (LS, structural similarity, SDP,
        MBCS), measured once per task; the item that measures them gets the calls' usage."""
        known = self._diversity.get(key)
        if known is not None:
            return known
        try:
            structural = structural_similarity(codes).mean
        except (ValueError, SyntaxError):
            structural = float("nan")
        values = {"levenshtein": ls(codes).mean, STRUCTURAL: structural}
        measures = self.measures
        sdp, sdp_usage = measure_sdp(codes, requirement, measures.judge,
                                     measures.sdp_reason or SDP_NOT_MEASURED)
        mbcs, mbcs_usage = measure_mbcs(codes, measures.embedder, timeout_s=measures.timeout_s)
        self._diversity[key] = {
            "diversity": {name: round(value, 6) for name, value in values.items()
                          if not math.isnan(value)},  # a failed measure is left out
            "sdp": sdp, "mbcs": mbcs}
        usage = sdp_usage + mbcs_usage
        return {**self._diversity[key], "diversity_usage": usage if usage.calls else None}

    def _result(self, task: Task, record: NVersionRecord, started: str, *, status: Status,
                reason: str | None, passed: int = 0, total: int = 0) -> ItemResult:
        total_s = time.perf_counter() - self._t0.pop(task.item_id, time.perf_counter())
        return ItemResult(
            timings=Timings(total_s=total_s, execution_s=total_s),
            item_id=task.item_id, dataset=NVERSION_DATASET, task_id=task.task_id,
            model=self.provider.model, status=status, reason=reason,
            pass_ratio=passed / total if total else 0.0, tests_passed=passed, tests_total=total,
            sandbox=self.sandbox.name, worker=self.options.worker, started_at=started,
            finished_at=datetime.now(UTC).isoformat(timespec="milliseconds"),
            cluster=record.task, nversion=record)
