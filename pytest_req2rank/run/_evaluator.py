"""The per-process side of a run: evaluates the plan's items with its models, sandbox and judges."""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..execution import RunOptions, run_requirement, run_task
from ..models import (
    COMPLEXITIES,
    ItemId,
    ItemResult,
    ModelSpec,
    ReasoningEffort,
    Status,
    Task,
    Usage,
)
from ..plan import RunPlan
from ..providers import (
    CachedProvider,
    CallGate,
    LiteLLMProvider,
    Provider,
    RetryPolicy,
    resolve_provider,
)
from ..sandbox import Sandbox, TakingTurns, create_sandbox
from ..settings import Settings

if TYPE_CHECKING:
    from ..generation import Template
    from ..judging import Judge, PanelConfig
    from ..models import ProjectRequirement
    from ..nversion import NVersionEvaluator, SemanticMeasures
    from ..store import Store


@dataclass(frozen=True)
class Equipment:
    """The models, judges and templates a process evaluates a run's items with: only what the
    run uses (:meth:`Evaluator.equipment` builds it)."""

    providers: dict[str, Provider]
    """Each model the run benchmarks, by its text; the target (``--r2r-model``) first."""
    generator: Provider | None = None
    judges: list[Judge] = field(default_factory=list)
    panel_config: PanelConfig | None = None
    """How the judges' verdicts blend (``None`` without judges)."""
    templates: dict[str, Template] = field(default_factory=dict)
    """The dynamic suite's requirement templates, by id (empty for any other suite)."""
    nversion: NVersionEvaluator | None = None
    """An N-version run's items: versions, and ensemble checks voted on them."""
    semantic: SemanticMeasures | None = None
    store: Store | None = None
    """The store the response cache writes to, and a resumed N-version run's kept versions
    are read from (``None`` when nothing needs it: every model offline, nothing kept)."""

    def close(self) -> None:
        for judge in self.judges:
            judge.close()
        if self.semantic is not None and self.semantic.judge is not None:
            self.semantic.judge.close()
        for provider in [*self.providers.values(), *([self.generator] if self.generator else [])]:
            provider.close()


class Evaluator:
    """Evaluates items on one process (an xdist worker, or the only process without xdist):
    the tasks of the plan, the sandbox, and the models and judges of :meth:`equipment`.

    Every remote model's call passes ``gate``, the run's (:class:`~pytest_req2rank.run.Run`
    makes it from ``--r2r-concurrency``), and its answer is written to the store's response
    cache as it arrives, keyed by run id; a resumed run (same run id) is answered from the
    cache. The items it keeps (``kept``: finished with a verdict) are deselected, never
    evaluated again; an N-version run's ensemble checks read their kept versions from the
    store. :meth:`evaluate` is thread-safe: the run's look-ahead calls it from its threads.
    """

    def __init__(self, settings: Settings, plan: RunPlan, tasks: dict[str, Task],
                 store_path: Path, *, gate: CallGate, kept: frozenset[str] = frozenset()) -> None:
        self.settings = settings
        self.plan = plan
        self.tasks = tasks
        self.store_path = store_path
        self.gate = gate
        self.kept = kept
        """The items a resumed run keeps from its earlier sessions."""
        self.sandbox: Sandbox = TakingTurns(create_sandbox(settings.sandbox))
        self.options = RunOptions(
            max_tokens=settings.max_tokens,
            temperature=settings.temperature,
            seed=plan.seed,
            api_timeout_s=settings.timeout,
            sandbox_timeout_s=settings.sandbox_timeout_s,
            worker=os.environ.get("PYTEST_XDIST_WORKER", "main"),
        )
        self._equipment: Equipment | None = None
        self._equipping = threading.Lock()

    def task(self, item_id: str) -> Task:
        return self.tasks[item_id]

    def equipment(self) -> Equipment:
        """The run's models, judges and templates, built by the first call (under a lock: the
        look-ahead's threads may ask at once) and kept.

        Only what the run uses is built, and only its modules imported: a static suite
        without judges loads no generator, judge panel or N-version library (nor numpy,
        jsonschema or sqlite-utils, nor litellm, which a provider imports on its first
        call), which keeps a worker's start short; a run whose models are all offline opens
        no store.
        """
        with self._equipping:
            if self._equipment is None:
                self._equipment = _Outfitter(self).build()
            return self._equipment

    def provider_of(self, task: Task) -> Provider:
        """The model that answers ``task``: its item's ``@MODEL``, else the run's model."""
        return self.equipment().providers[self.model_of(task)]

    def model_of(self, task: Task) -> str:
        """The text of the model that answers ``task``."""
        model = ItemId.parse(task.item_id).model if self.settings.models else None
        return self.settings.model.text if model is None else model

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
        calls = (2 + (1 if self.settings.panel() else 0)
                 + (3 if self.settings.generator is not None else 0))
        # HumanEval-form checks and probes run a few executions of a budget each; a generator's
        # calibration grades mutants as well.
        executions = ((len(task.cases) + SANDBOX_EXECUTIONS)
                      * (10 if self.settings.generator is not None else 1))
        return (calls * RetryPolicy().longest_call_s(api_s)
                + executions * self.settings.sandbox_timeout_s + CEILING_MARGIN_S)

    @property
    def _pipelined(self) -> bool:
        """Whether an N-version run's versions come from the generation pipeline."""
        return (self.settings.model.kind != "reference"
                and self.settings.generation_config().method == "pipeline")

    def evaluate(self, task: Task) -> ItemResult:
        """The result of ``task``: the model asked, its code graded, the judges' verdicts."""
        equipment = self.equipment()
        if equipment.nversion is not None:
            result = equipment.nversion.evaluate(task)
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

        equipment = self.equipment()
        spec = RequirementSpec.model_validate(task.spec)
        requirement = build_requirement(spec, equipment.templates)
        provenance = None
        generator_usage = Usage()
        if equipment.generator is not None:
            try:
                elaboration = elaborate(requirement, equipment.generator,
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
        equipment = self.equipment()
        if not equipment.judges or equipment.panel_config is None:
            return result
        from ..judging import judge_result  # loaded already: the judges were built

        return judge_result(result, equipment.judges, equipment.panel_config, requirement)

    def close(self) -> None:
        """Release the models, the judges, the sandbox and the store."""
        equipment = self._equipment
        if equipment is not None:
            equipment.close()
        self.sandbox.close()
        if equipment is not None and equipment.store is not None:
            equipment.store.close()


class _Outfitter:
    """Builds an evaluator's :class:`Equipment`, once; models answer through the run's gate
    and, when remote, its response cache."""

    def __init__(self, evaluator: Evaluator) -> None:
        self.settings = evaluator.settings
        self.plan = evaluator.plan
        self.evaluator = evaluator
        self.store: Store | None = None

    def build(self) -> Equipment:
        settings = self.settings
        providers = {model.text: self.answering(model, settings.api_base, settings.reasoning_effort)
                     for model in dict.fromkeys((settings.model, *settings.models))}
        generator = (None if settings.generator is None else
                     self.answering(settings.generator, settings.api_base))
        judges, panel_config = self.panel()
        templates: dict[str, Template] = {}
        if settings.suite.kind == "dynamic":
            from ..generation import load_templates  # ~0.5 s a static suite never needs

            templates = {template.id: template for template in load_templates(settings.templates)}
        semantic = nversion = None
        if self.plan.nversion is not None:
            semantic = self.semantic_measures()
            nversion = self.nversion(providers[settings.model.text], semantic)
        return Equipment(providers, generator, judges, panel_config, templates, nversion,
                         semantic, self.store)

    def panel(self) -> tuple[list[Judge], PanelConfig | None]:
        """The judges, their LLMs answering through the run's response cache like the target,
        and how their verdicts blend; none for a run without a panel."""
        settings = self.settings
        if not settings.panel():
            return [], None
        from ..judging import PanelConfig, build_judges  # ~0.2 s (analysers, numpy)

        judges = build_judges(settings.panel(), provider=self.judge, seed=self.plan.seed,
                              timeout_s=settings.timeout, weights=settings.weights)
        return judges, PanelConfig(weights=settings.weights,
                                   execution_weight=settings.execution_weight,
                                   exclude_self_judging=settings.exclude_self_judging)

    def answering(self, model: ModelSpec | str, api_base: str | None,
                  reasoning_effort: ReasoningEffort | None = None) -> Provider:
        """``model`` answering through the run's gate and response cache (offline models need
        neither)."""
        provider = resolve_provider(model, api_base=api_base, gate=self.evaluator.gate,
                                    reasoning_effort=reasoning_effort)
        if provider.offline:
            return provider
        return CachedProvider(provider, self.opened_store(), namespace=self.plan.run_id,
                              api_base=api_base)

    def judge(self, model: str) -> Provider:
        return self.answering(model, api_base=None)

    def opened_store(self) -> Store:
        if self.store is None:
            from ..store import Store  # sqlite-utils: a run of offline models never needs it

            self.store = Store(self.evaluator.store_path)
        return self.store

    def semantic_measures(self) -> SemanticMeasures:
        """What measures an N-version run's SDP (an approach judge) and MBCS (an embedding
        model); either may be absent, and is then reported as not measured."""
        from ..judging import ApproachJudge  # as build_judges
        from ..nversion import SemanticMeasures  # the library: only for N-version runs

        settings = self.settings
        model, why = settings.sdp_judge_model()
        judge = None if model is None else ApproachJudge(
            self.judge(model), seed=self.plan.seed, timeout_s=settings.timeout)
        embedder = None if settings.embedding_model is None else LiteLLMProvider(
            settings.embedding_model, api_base=settings.embedding_api_base,
            gate=self.evaluator.gate)
        return SemanticMeasures(judge=judge, embedder=embedder,
                                sdp_reason="" if judge is not None else why,
                                timeout_s=settings.timeout)

    def nversion(self, target: Provider, measures: SemanticMeasures) -> NVersionEvaluator:
        """An N-version run's items: versions from the model (the built-in model: from the
        library), ensemble checks voted on them."""
        from ..nversion import (  # the library and tree-sitter: only for N-version runs
            LibraryProvider,
            NVersionEvaluator,
            load_library,
        )

        assert self.plan.nversion is not None
        evaluator = self.evaluator
        library = {entry.task_id: entry for entry in load_library()}
        builtin = self.settings.model.kind == "reference"
        nversion = NVersionEvaluator(
            LibraryProvider(library) if builtin else target, evaluator.sandbox,
            evaluator.options, n=self.plan.nversion, library=library, builtin=builtin,
            measures=measures, generation=self.settings.generation_config())
        if evaluator.kept:  # the kept versions and diversity, for the checks that run again
            for item in self.opened_store().items(self.plan.run_id):
                if item.item_id in evaluator.kept:
                    nversion.remember(item)
        return nversion


CEILING_MARGIN_S = 60.0
MAX_MUTANT_TRIES = 25
"""Mutants an ensemble check grades per version at most (``nversion.MAX_MUTANT_TRIES``)."""
SANDBOX_EXECUTIONS = 20
SDP_PAIRS_AT_ONCE = 8
"""Pairs of a task SDP asks at once (``nversion.MAX_PAIRS_AT_ONCE``)."""


def lost_item(task: Task, model: str, status: Status, reason: str) -> ItemResult:
    """An item lost to infrastructure (``api_error``, ``sandbox_error``), not the model's fault."""
    kind: Literal["static", "dynamic"] = "dynamic" if task.form == "requirement" else "static"
    return ItemResult(item_id=task.item_id, dataset=task.dataset, task_id=task.task_id, model=model,
                      status=status, reason=reason, kind=kind, sample=task.sample)
