"""The per-process side of a run: evaluates the plan's items with the provider, sandbox and judges."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from concurrent.futures import TimeoutError as FutureTimeout
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from ..execution import RunOptions, run_requirement, run_task
from ..models import COMPLEXITIES, ItemId, ItemResult, ModelSpec, ReasoningEffort, Task, Usage
from ..plan import RunPlan
from ..providers import (
    CachedProvider,
    LiteLLMProvider,
    Provider,
    RetryPolicy,
    calls_refused,
    resolve_provider,
)
from ..sandbox import Sandbox, TakingTurns, create_sandbox
from ..settings import Settings
from ._prefetch import Prefetcher

if TYPE_CHECKING:
    from ..generation import Template
    from ..judging import Judge, PanelConfig
    from ..models import ProjectRequirement
    from ..nversion import NVersionEvaluator, SemanticMeasures
    from ..store import Store


class Evaluator:
    """Evaluates items on one process (an xdist worker, or the only process without xdist):
    the tasks of the plan, the provider, the sandbox and the judges, each built lazily.

    Every model answer is written to the store's response cache as it arrives,
    keyed by run id; a resumed run (same run id) is answered from the cache. The items it
    keeps (``kept``: finished with a verdict) are deselected, never evaluated again; an
    N-version run's ensemble checks read their kept versions from the store.

    When a model of the run answers over the network, the items this process runs next are
    evaluated ahead of pytest (:mod:`._prefetch`), ``--r2r-concurrency`` of them at most, and
    an item that has no result within its ceiling (:meth:`ceiling_s`) is an ``api_error``.

    The store, the generator and the judge panel are imported on first use: a
    static suite without judges never loads them (nor numpy, jsonschema or
    sqlite-utils), which keeps a worker's start short.
    """

    def __init__(
        self,
        settings: Settings,
        plan: RunPlan,
        tasks: dict[str, Task],
        store_path: Path,
        *,
        kept: frozenset[str] = frozenset(),
    ) -> None:
        self.settings = settings
        self.plan = plan
        self.tasks = tasks
        self.store_path = store_path
        self.kept = kept
        """The items a resumed run keeps from its earlier sessions."""

    def task(self, item_id: str) -> Task:
        return self.tasks[item_id]

    @cached_property
    def store(self) -> Store:
        from ..store import Store  # sqlite-utils: a run without a cache or resume never needs it

        return Store(self.store_path)

    def _cached_provider(self, model: ModelSpec | str, api_base: str | None,
                         reasoning_effort: ReasoningEffort | None = None) -> Provider:
        """``model`` answering through the run's response cache (offline models need none)."""
        provider = resolve_provider(model, api_base=api_base, concurrency=self.settings.concurrency,
                                    reasoning_effort=reasoning_effort)
        if provider.offline:
            return provider
        return CachedProvider(provider, self.store, namespace=self.plan.run_id, api_base=api_base)

    @cached_property
    def provider(self) -> Provider:
        return self._cached_provider(self.settings.model, self.settings.api_base,
                                     self.settings.reasoning_effort)

    @cached_property
    def providers(self) -> dict[str, Provider]:
        """Each model of a run of several models by its text (``{}`` in a run of one)."""
        return {model.text: self.provider if model == self.settings.model else
                self._cached_provider(model, self.settings.api_base, self.settings.reasoning_effort)
                for model in self.settings.models}

    def provider_of(self, task: Task) -> Provider:
        """The model that answers ``task``: its item's ``@MODEL``, else the run's model."""
        model = ItemId.parse(task.item_id).model if self.settings.models else None
        return self.provider if model is None else self.providers[model]

    def model_of(self, task: Task) -> str:
        """The text of the model that answers ``task``."""
        model = ItemId.parse(task.item_id).model if self.settings.models else None
        return self.settings.model.text if model is None else model

    @cached_property
    def sandbox(self) -> Sandbox:
        return TakingTurns(create_sandbox(self.settings.sandbox))

    @cached_property
    def options(self) -> RunOptions:
    
        return RunOptions(
            max_tokens=self.settings.max_tokens,
            temperature=self.settings.temperature,
            seed=self.plan.seed,
            api_timeout_s=self.settings.timeout,
            sandbox_timeout_s=self.settings.sandbox_timeout_s,
            worker=os.environ.get("PYTEST_XDIST_WORKER", "main"),
        )

    @cached_property
    def nversion(self) -> NVersionEvaluator | None:
        """An N-version run's items: versions from the model (the built-in model: from the
        library), ensemble checks voted on them; None in any other run."""
        if self.plan.nversion is None:
            return None
        from ..nversion import (  # the library and tree-sitter: only for N-version runs
            LibraryProvider,
            NVersionEvaluator,
            load_library,
        )

        library = {entry.task_id: entry for entry in load_library()}
        builtin = self.settings.model.kind == "reference"
        provider = LibraryProvider(library) if builtin else self.provider
        evaluator = NVersionEvaluator(provider, self.sandbox, self.options, n=self.plan.nversion,
                                      library=library, builtin=builtin,
                                      measures=self.semantic_measures,
                                      generation=self.settings.generation_config())
        if self.kept:  # the kept versions and diversity, for the checks that run again
            for item in self.store.items(self.plan.run_id):
                if item.item_id in self.kept:
                    evaluator.remember(item)
        return evaluator

    @cached_property
    def semantic_measures(self) -> SemanticMeasures:
        """What measures an N-version run's SDP (an approach judge) and MBCS (an embedding
        model); either may be absent, and is then reported as not measured."""
        from ..judging import ApproachJudge  # as build_judges
        from ..nversion import SemanticMeasures  # as nversion

        model, why = self.settings.sdp_judge_model()
        judge = None if model is None else ApproachJudge(
            self._judge_provider(model), seed=self.plan.seed, timeout_s=self.settings.timeout)
        embedder = None if self.settings.embedding_model is None else LiteLLMProvider(
            self.settings.embedding_model, api_base=self.settings.embedding_api_base,
            concurrency=self.settings.concurrency)
        return SemanticMeasures(judge=judge, embedder=embedder,
                                sdp_reason="" if judge is not None else why,
                                timeout_s=self.settings.timeout)

    @cached_property
    def templates(self) -> dict[str, Template]:
        from ..generation import load_templates  # ~0.5 s of imports a static suite never needs

        return {template.id: template for template in load_templates(self.settings.templates)}

    @cached_property
    def generator(self) -> Provider | None:
        if self.settings.generator is None:
            return None
        return self._cached_provider(self.settings.generator, self.settings.api_base)

    @cached_property
    def judges(self) -> list[Judge]:
        """The panel; LLM judges answer through the run's response cache, like the target."""
        if not self.settings.panel():
            return []
        from ..judging import build_judges  # ~0.2 s (analysers, numpy) a run without judges skips

        return build_judges(
            self.settings.panel(), provider=self._judge_provider, seed=self.plan.seed,
            timeout_s=self.settings.timeout, weights=self.settings.weights,
        )

    @cached_property
    def panel_config(self) -> PanelConfig:
        from ..judging import PanelConfig  # as build_judges

        return PanelConfig(
            weights=self.settings.weights,
            execution_weight=self.settings.execution_weight,
            exclude_self_judging=self.settings.exclude_self_judging,
        )

    def _judge_provider(self, model: str) -> Provider:
        return self._cached_provider(model, api_base=None)

    @cached_property
    def _prefetcher(self) -> Prefetcher | None:
        """Items ahead of pytest only when a model waits on the network: offline models answer
        at once, and their runs keep one thread."""
        targets = [self.provider, *self.providers.values()]
        models = [*([self.generator] if self.generator else []), *self.judges]
        semantic = self.plan.nversion is not None and (
            self.settings.sdp_judge_model()[0] is not None
            or self.settings.embedding_model is not None)
        if all(target.offline for target in targets) \
                and all(model.offline for model in models) and not semantic:
            return None
        return Prefetcher(self._evaluate_now, depth=self.settings.concurrency)

    def look_ahead(self, item_ids: Sequence[str]) -> None:
        """Start evaluating the items with ``item_ids``: this process runs them next, in order."""
        prefetcher = self._prefetcher
        if prefetcher is not None:
            self._build_shared()
            prefetcher.ahead([self.tasks[i] for i in item_ids if i in self.tasks])

    def _build_shared(self) -> None:
        """Build what the evaluation threads share here, on pytest's thread: a cached property
        is not built safely by several threads at once."""
        shared = ["options", "sandbox", "providers"]
        if self.judges:
            shared.append("panel_config")
        if self.settings.suite.kind == "dynamic":
            shared.append("templates")
        shared.append("nversion")
        for name in shared:
            getattr(self, name)

    def evaluate(self, task: Task) -> ItemResult:
        """The result of ``task``; when it was started ahead, that evaluation's."""
        prefetcher = self._prefetcher
        if prefetcher is None or self.tasks.get(task.item_id) is not task:
            return self._evaluate_now(task)
        future = prefetcher.take(task)
        ceiling = self.ceiling_s(task)
        try:
            return future.result(timeout=ceiling)
        except FutureTimeout:
            future.cancel()
            return lost_item(task, self.model_of(task), "api_error",
                             f"no result within the item's ceiling of {ceiling:.0f} s (model "
                             "calls, retries, sandbox and judges together); the run went on")

    def ceiling_s(self, task: Task) -> float:
        """The longest an item may take: each model call of its own at its worst (every attempt
        timed out, every wait the longest; one more for the calls ahead of it in the gate),
        and its sandbox executions."""
        api_s = self.settings.timeout
        if self.plan.nversion is not None and self._pipelined:
            # Any item of a task may wait on its generation pipeline (every call at its worst),
            # which grades each program and repair; an ensemble check then runs its experiment.
            config, n = self.settings.generation_config(), self.plan.nversion
            calls = config.max_calls(n)
            executions = calls + n * (MAX_MUTANT_TRIES + 3) + SANDBOX_EXECUTIONS
            return (calls * RetryPolicy().longest_call_s(api_s)
                    + executions * self.settings.sandbox_timeout_s + CEILING_MARGIN_S)
        if self.plan.nversion is not None and ItemId.parse(task.item_id).version is None:
            # An ensemble check: every version (asked again at worst), then the injection's
            # mutant search and the runs of every version on the task's inputs.
            n = self.plan.nversion
            executions = n * (MAX_MUTANT_TRIES + 3) + SANDBOX_EXECUTIONS
            # SDP's pairs, a few at a time, and MBCS's one embedding call
            semantic = -(-n * (n - 1) // 2 // SDP_PAIRS_AT_ONCE) + 1
            return ((n * 2 + semantic) * RetryPolicy().longest_call_s(api_s)
                    + executions * self.settings.sandbox_timeout_s + CEILING_MARGIN_S)
        level = COMPLEXITIES.get(str((task.spec or {}).get("complexity")))
        if level is not None:
            api_s = max(api_s, level.timeout_s)
        calls = 2 + (1 if self.judges else 0) + (3 if self.generator is not None else 0)
        # HumanEval-form checks and probes run a few executions of a budget each; a generator's
        # calibration grades mutants as well.
        executions = (len(task.cases) + SANDBOX_EXECUTIONS) * (10 if self.generator else 1)
        return (calls * RetryPolicy().longest_call_s(api_s)
                + executions * self.settings.sandbox_timeout_s + CEILING_MARGIN_S)

    @property
    def _pipelined(self) -> bool:
        """Whether an N-version run's versions come from the generation pipeline."""
        return (self.settings.model.kind != "reference"
                and self.settings.generation_config().method == "pipeline")

    def _evaluate_now(self, task: Task) -> ItemResult:
        nversion = self.nversion
        if nversion is not None:
            result = nversion.evaluate(task)
            ensemble = result.nversion is not None and result.nversion.role == "ensemble"
            return result if ensemble else self._judged(result)
        if task.form == "requirement":
            return self._evaluate_requirement(task)
        return self._judged(run_task(task, self.provider_of(task), self.sandbox, self.options))

    def _evaluate_requirement(self, task: Task) -> ItemResult:
        """Rebuild the planned requirement, elaborate it with the generator when one is set
        (its answers are cached, so a resumed run never asks twice), then benchmark it."""
        from ..generation import (  # ~0.5 s of imports a static suite never needs
            InfrastructureError,
            RequirementSpec,
            build_requirement,
            elaborate,
            sandbox_grader,
        )

        spec = RequirementSpec.model_validate(task.spec)
        requirement = build_requirement(spec, self.templates)
        provenance = None
        generator_usage = Usage()
        if self.generator is not None:
            try:
                elaboration = elaborate(requirement, self.generator,
                                        sandbox_grader(self.sandbox))
            except InfrastructureError as exc:
                return lost_item(task, self.model_of(task), "sandbox_error",
                                 f"calibration failed: {exc}")
            requirement = elaboration.requirement
            provenance = elaboration.provenance.model_dump(mode="json")
            generator_usage = elaboration.usage
            task = task.model_copy(update={"reference_files": requirement.reference})
        result = run_requirement(task, requirement, self.provider_of(task), self.sandbox,
                                 self.options)
        cluster = hashlib.sha256(spec.key.encode()).hexdigest()[:16]
        result = result.model_copy(update={"provenance": provenance, "cluster": cluster,
                                           "generator_usage": generator_usage})
        return self._judged(result, requirement)

    def _judged(self, result: ItemResult, requirement: ProjectRequirement | None = None
                ) -> ItemResult:
        """``result`` with the panel's verdicts (unchanged when the run has no panel)."""
        if not self.judges:
            return result
        from ..judging import judge_result  # as build_judges

        return judge_result(result, self.judges, self.panel_config, requirement)

    def close(self) -> None:
        """Stop what runs ahead (:meth:`Prefetcher.close`), then release everything."""
        prefetcher = self.__dict__.get("_prefetcher")
        if prefetcher is not None:
            prefetcher.close(calls_refused)
        for judge in self.__dict__.get("judges", []):
            judge.close()
        measures = self.__dict__.get("semantic_measures")
        if measures is not None and measures.judge is not None:
            measures.judge.close()
        for provider in self.__dict__.get("providers", {}).values():
            if provider is not self.__dict__.get("provider"):
                provider.close()
        for name in ("sandbox", "provider", "generator", "store"):
            if name in self.__dict__:
                resource = getattr(self, name)
                if resource is not None:
                    resource.close()


CEILING_MARGIN_S = 60.0
MAX_MUTANT_TRIES = 25
"""Mutants an ensemble check grades per version at most (``nversion.MAX_MUTANT_TRIES``)."""
SANDBOX_EXECUTIONS = 20
SDP_PAIRS_AT_ONCE = 8
"""Pairs of a task SDP asks at once (``nversion.MAX_PAIRS_AT_ONCE``)."""


def lost_item(task: Task, model: str, status: str, reason: str) -> ItemResult:
    """An item lost to infrastructure (``api_error``, ``sandbox_error``), not the model's fault."""
    kind = "dynamic" if task.form == "requirement" else "static"
    return ItemResult(item_id=task.item_id, dataset=task.dataset, task_id=task.task_id, model=model,
                      status=status, reason=reason, kind=kind, sample=task.sample)
