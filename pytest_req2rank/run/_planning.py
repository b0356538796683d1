"""Planning a run from its settings: the seed, the suite's tasks, the frozen plan, a
baseline's or a resumed run's plan, and the checks of its models before any item."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..draws import Draw
from ..errors import ConfigurationError
from ..models import (
    INFRA_STATUSES,
    REFERENCE_MODEL,
    STATIC_JUDGE,
    ItemId,
    ItemResult,
    ModelSpec,
    SuiteSpec,
    Task,
)
from ..plan import RunPlan, SampleCounts, build_plan, planned_tasks, select_tasks
from ..providers import (
    CallGate,
    PreflightModel,
    PreflightReport,
    SamplesProvider,
    check_model,
    check_model_name,
)
from ..settings import BaselinePlan, Settings, SettingsError, plan_like_baseline
from ..suites import DynamicOptions, SuiteError, TemplateLibraryError, load_suite
from ._controller import store_path

if TYPE_CHECKING:
    from ..report import ResultsDocument


@dataclass(frozen=True)
class PlannedRun:
    """A run as planned on the controller (or the only process)."""

    settings: Settings
    """The run's settings; a gated run's as its baseline's plan adjusted them."""
    plan: RunPlan
    tasks: dict[str, Task]
    """Each planned item's task, by item id."""
    finished: list[ItemResult]
    """A resumed run's items finished before (kept or to run again)."""
    kept: frozenset[str]
    """The items a resumed run keeps: not run again."""
    baseline: tuple[Path, ResultsDocument] | None
    """The ``--r2r-baseline`` results document, and where it was read."""
    baseline_line: str | None
    """The header line of a gated run."""


def plan_run(settings: Settings, draw: Draw, seed: int | None = None) -> PlannedRun:
    """Plan a run: its baseline's plan (``--r2r-baseline``), the plan of the run it resumes
    (``--r2r-resume``), or a new plan of ``settings``' suite drawn with ``seed`` (a submitted
    run's, drawn from the hub's nonce), else ``--r2r-seed``, else ``draw``'s. Raise
    :class:`SettingsError` (one line) for a suite, samples file, baseline or resume that
    cannot be used."""
    baseline = _load_baseline(settings)
    line = None
    if baseline is not None:  # planned as the baseline was, unless the user says otherwise
        gate = plan_like_baseline(settings, baseline[1].run.settings, baseline[1].run.seed,
                                  baseline[0])
        settings = gate.settings
        line = baseline_line(gate, *baseline)
    finished: list[ItemResult] = []
    kept: frozenset[str] = frozenset()
    if settings.resume:
        plan, finished = _resumed_plan(settings, store_path(settings))
        kept = kept_items(plan, finished)
        tasks = _load_tasks(settings, plan.seed)
    else:
        if seed is None:
            seed = settings.seed if settings.seed is not None else draw.seed
        if settings.nversion is not None:  # sample among the tasks, not among their items
            tasks = nversion_items(settings, select_tasks(_nversion_base(settings, seed),
                                                          settings.sample, seed))
            plan = build_plan(tasks, model=str(settings.model), suite=str(settings.suite),
                              seed=seed, sample=None, run_id=draw.run_id,
                              nversion=settings.nversion)
        else:
            tasks = _load_tasks(settings, seed)
            plan = build_plan(tasks, model=settings.models_text, suite=str(settings.suite),
                              seed=seed, sample=settings.sample, run_id=draw.run_id,
                              samples=_samples_per_task(settings),
                              models=[model.text for model in settings.models])
    by_id = planned_tasks(plan, tasks)
    unknown = [item_id for item_id in plan.item_ids if item_id not in by_id]
    if unknown:
        raise SettingsError(f"--r2r-resume: the suite no longer holds item {unknown[0]!r} of the run")
    return PlannedRun(settings, plan, by_id, finished, kept, baseline, line)


def planned_run_tasks(settings: Settings, plan: RunPlan) -> dict[str, Task]:
    """The tasks of a plan made elsewhere (an xdist worker's, from its controller)."""
    return planned_tasks(plan, _load_tasks(settings, plan.seed))


def _samples_per_task(settings: Settings) -> SampleCounts:
    """How many samples each task gets: ``--r2r-samples-per-task``, or, for a samples file,
    its completions per task (the file decides; an explicit different count is an error)."""
    if settings.model.kind != "samples":
        return settings.samples_per_task
    try:
        provider = SamplesProvider(settings.model.path)
    except ConfigurationError as exc:
        raise SettingsError(f"--r2r-model: {exc}") from None
    counts = provider.counts()
    wanted = settings.samples_per_task
    if "samples_per_task" in settings.explicit and set(counts.values()) != {wanted}:
        fewest, most = min(counts, key=counts.__getitem__), max(counts, key=counts.__getitem__)
        held = (f"{counts[most]} completions for every task" if counts[fewest] == counts[most] else
                f"{counts[fewest]} to {counts[most]} completions per task ({counts[most]} for "
                f"{most}, {counts[fewest]} for {fewest})")
        raise SettingsError(
            f"--r2r-samples-per-task={wanted}: {provider.path} holds {held}, and a samples file "
            "decides how many samples a task has; leave --r2r-samples-per-task out, or pass a "
            f"file with {wanted} completions per task")
    return counts


def _load_tasks(settings: Settings, seed: int) -> list[Task]:
    """The suite's tasks; for an N-version run, every N-version item's task."""
    if settings.nversion is not None:
        return nversion_items(settings, _nversion_base(settings, seed))
    return _suite_tasks(settings, seed)


def _nversion_base(settings: Settings, seed: int) -> list[Task]:
    """The tasks an N-version run covers: the suite's HumanEval-form tasks; for the
    built-in model, those its library holds, followed, when the suite is the default one, by
    the library's own requirement tasks."""
    from ..nversion import (  # the library: only in N-version runs
        library_tasks,
        load_library,
        requirement_tasks,
    )

    tasks = [task for task in _suite_tasks(settings, seed) if task.form == "function"]
    if settings.model.kind == "reference":
        library = load_library()
        tasks = library_tasks(tasks, library)
        if "suite" not in settings.explicit:
            tasks += requirement_tasks(library)
        if not tasks:
            held = sum(not entry.is_requirement for entry in library)
            raise SettingsError(
                f"--r2r-suite: none of the tasks of {settings.suite} is in the N-version "
                f"library ({held} HumanEval tasks) that {REFERENCE_MODEL} answers from; "
                "pass --r2r-suite=humaneval, or --r2r-model=MODEL")
    if not tasks:
        raise SettingsError(f"--r2r-suite: {settings.suite} has no HumanEval-form task "
                            "(prompt, entry_point, test), and an N-version run needs them")
    return tasks


def nversion_items(settings: Settings, tasks: list[Task]) -> list[Task]:
    """The N-version items of ``tasks``: N versions each, then the fault patterns asked for."""
    from ..nversion import nversion_tasks, patterns_of  # as _nversion_base

    assert settings.nversion is not None
    return nversion_tasks(tasks, settings.nversion, patterns_of(settings.faults))


def _suite_tasks(settings: Settings, seed: int) -> list[Task]:
    dynamic = DynamicOptions(
        rounds=settings.rounds, complexities=settings.complexity, skills=settings.skills,
        domains=settings.domains, templates_dir=settings.templates,
    )
    try:
        return load_suite(settings.suite, seed=seed, dynamic=dynamic)
    except TemplateLibraryError as exc:
        raise SettingsError(f"--r2r-templates: {exc}") from None
    except SuiteError as exc:
        raise SettingsError(f"--r2r-suite: {exc}") from None


def _load_baseline(settings: Settings) -> tuple[Path, ResultsDocument] | None:
    if settings.baseline is None:
        return None
    from ..report import load_results, run_models  # ~0.13 s, only for --r2r-baseline

    path = settings.baseline
    try:
        document = load_results(path)
    except ValueError as exc:
        raise SettingsError(f"--r2r-baseline: {exc}") from None
    ranked = run_models(document)
    if ranked and settings.model.text not in ranked:
        raise SettingsError(
            f"--r2r-baseline: {path} ranked several models ({', '.join(ranked)}), not "
            f"{settings.model.text}; gate one of them against its own answers there "
            f"(--r2r-model={ranked[0]}), or pass the results of a run of {settings.model.text}")
    if "suite" in settings.explicit and not _same_suite(document.run.suite, settings.suite):
        raise SettingsError(
            f"--r2r-baseline: {path} ran suite {document.run.suite!r}, this run {str(settings.suite)!r}; "
            "drop --r2r-suite to run the baseline's suite, so the runs compare the same "
            "requirements"
        )
    return path, document


def baseline_line(gate: BaselinePlan, path: Path, baseline: ResultsDocument) -> str:
    """The header line of a gated run: what it reuses of its baseline's plan, what the user
    changed, and why the comparison may pair fewer items than the run has."""
    parts = [f"req2rank: baseline gate against {path} (run {baseline.run.id}): reusing its "
             + (", ".join(gate.reused) or "plan")]
    if gate.overridden:
        parts.append(f"given here: {', '.join(gate.overridden)}, so the comparison pairs only "
                     "the requirements both runs have")
    ranked = baseline.summary.by_model or {}
    own = ranked.get(gate.settings.model.text)
    if own is not None:  # a baseline of several models: this run's model's answers there
        parts.append(f"compared with its answers of {gate.settings.model.text} (it ranked "
                     f"{len(ranked)} models)")
    counted = own or baseline.summary
    if counted.items_total < counted.items_planned:
        parts.append(f"the baseline finished {counted.items_total} of its "
                     f"{counted.items_planned} items, so at most {counted.items_total} pairs")
    return " | ".join(parts)


def _same_suite(recorded: str, suite: SuiteSpec) -> bool:
    """Whether a run recorded with suite ``recorded`` ran the same suite as ``suite``."""
    try:
        return SuiteSpec.parse(recorded).key == suite.key
    except ValueError:
        return False


def _resumed_plan(settings: Settings, db: Path) -> tuple[RunPlan, list[ItemResult]]:
    """The plan and the finished items of the run to resume."""
    from ..store import Store, StoreUnusable, check_store  # sqlite-utils, only to resume

    run_id = settings.resume or ""
    if not db.exists():
        raise SettingsError(
            f"--r2r-resume: no store at {db}, so no run {run_id!r} to resume; pass the "
            "--r2r-db (or --r2r-dir) of the interrupted run"
        )
    try:
        check_store(db)
    except StoreUnusable as exc:
        raise SettingsError(f"--r2r-resume: {exc}") from None
    store = Store(db)
    try:
        run = store.run(run_id)
        if run is None:
            raise SettingsError(
                f"--r2r-resume: no run {run_id!r} in {db}; `req2rank runs --db {db}` lists "
                "its runs (the id is also in a run's header and results.json)"
            )
        plan = RunPlan.model_validate_json(run["plan"])
        for field, stored, same in (
            ("model", plan.model, plan.model == settings.models_text),
            ("suite", plan.suite, _same_suite(plan.suite, settings.suite)),
        ):
            if not same:
                raise SettingsError(
                    f"--r2r-resume: run {run_id} benchmarked {field} {stored!r}; "
                    f"resume it with --r2r-{field}={stored}"
                )
        if plan.nversion != settings.nversion:
            asked = (f"--r2r-nversion={plan.nversion}" if plan.nversion is not None
                     else "no --r2r-nversion")
            raise SettingsError(f"--r2r-resume: run {run_id} was planned with {asked}; "
                                "resume it with the same")
        if plan.nversion is not None:
            _check_resumed_faults(run_id, plan, settings)
        if "samples_per_task" in settings.explicit and settings.samples_per_task != plan.samples:
            raise SettingsError(
                f"--r2r-resume: run {run_id} asked for {plan.samples} samples per task; resume "
                f"it with --r2r-samples-per-task={plan.samples}, or leave the option out")
        return plan, store.items(run_id)
    finally:
        store.close()


def kept_items(plan: RunPlan, finished: list[ItemResult]) -> frozenset[str]:
    """The items a resumed run keeps: those of its plan with a verdict. An item lost to
    infrastructure (``api_error``, ``sandbox_error``) has none, and runs again."""
    planned = set(plan.item_ids)
    return frozenset(item.item_id for item in finished
                     if item.item_id in planned and item.status not in INFRA_STATUSES)


def _check_resumed_faults(run_id: str, plan: RunPlan, settings: Settings) -> None:
    """An N-version run resumes with the fault families it was planned with (its ensemble
    checks' patterns say which)."""
    from ..nversion import FAMILY_PATTERNS  # the library: only in N-version runs

    planned = {ItemId.parse(item_id).pattern for item_id in plan.item_ids}
    stored = [family for family, patterns in FAMILY_PATTERNS.items()
              if any(p.name in planned for p in patterns)]
    if stored != list(settings.faults):
        raise SettingsError(
            f"--r2r-resume: run {run_id} was planned with --r2r-faults={','.join(stored)}, "
            f"not {','.join(settings.faults)}; resume it with --r2r-faults={','.join(stored)}")


def _models_of_run(settings: Settings, task_ids: list[str]
                   ) -> list[tuple[str, ModelSpec | str, str | None, list[str] | None]]:
    """Every model the run calls: (option, model, its api_base, the task ids it must cover)."""
    models: list[tuple[str, ModelSpec | str, str | None, list[str] | None]] = [
        ("--r2r-model", model, settings.api_base, task_ids) for model in settings.ranked_models]
    if settings.generator is not None:
        models.append(("--r2r-generator", settings.generator, settings.api_base, None))
    models += [("--r2r-judges", judge, None, None)
               for judge in settings.panel() if judge != STATIC_JUDGE]
    if settings.nversion is not None:
        if settings.sdp_judge is not None and settings.sdp_judge_model()[0] is not None:
            models.append(("--r2r-sdp-judge", settings.sdp_judge, None, None))
        if settings.embedding_model is not None:
            models.append(("--r2r-embedding-model", settings.embedding_model,
                           settings.embedding_api_base, None))
    return models


def calls_remote_models(settings: Settings) -> bool:
    """Whether a model of the run answers over the network (anything but a ``r2r/…``
    built-in): only then are items started ahead of pytest."""
    for _, model, _, _ in _models_of_run(settings, []):
        try:
            if not (model if isinstance(model, ModelSpec) else ModelSpec.parse(model)).is_builtin:
                return True
        except ValueError:  # checked on the controller already; served by LiteLLM if at all
            return True
    return False


def check_model_names(settings: Settings) -> None:
    """Refuse, before the suite is loaded or drawn, a model name no run can use: a ``fake/``
    model missing from the fake script, a name LiteLLM's own files show it routes nowhere
    (:func:`check_models` checks the rest once the run is planned)."""
    for option, model, api_base, _ in _models_of_run(settings, []):
        try:
            check_model_name(model, api_base=api_base)
        except ConfigurationError as exc:
            raise SettingsError(f"{option}: {exc}") from None


def check_models(settings: Settings, task_ids: list[str]) -> None:
    """Check the model, the generator and the judges once, up front, so a broken samples
    file, an unroutable model name or a model missing from the fake script is one clear
    error rather than one failure per item. Builds no provider of the run (nor its store)."""
    for option, model, api_base, ids in _models_of_run(settings, task_ids):
        effort = settings.reasoning_effort if option == "--r2r-model" else None
        try:
            check_model(model, api_base=api_base, task_ids=ids, reasoning_effort=effort)
        except ConfigurationError as exc:
            raise SettingsError(f"{option}: {exc}") from None


def preflight_models(settings: Settings, tasks: Iterable[Task], task_ids: list[str],
                     gate: CallGate) -> PreflightReport:
    """Call every remote model of the run once, through the run's ``gate``
    (:func:`~pytest_req2rank.providers.preflight`); raise
    :class:`~pytest_req2rank.providers.PreflightFailed`, one line per model that cannot
    answer."""
    from ..providers import PreflightFailed, preflight  # as the adapter: on the first call

    elaborates = any(task.form == "requirement" for task in tasks)
    report = preflight(
        [PreflightModel(str(model), api_base, (option,), option == "--r2r-embedding-model",
                        "--r2r-embedding-api-base" if option == "--r2r-embedding-model"
                        else "--r2r-api-base")
         for option, model, api_base, _ in _models_of_run(settings, task_ids)
         if option != "--r2r-generator" or elaborates],  # a static suite never calls it
        gate=gate, timeout_s=settings.timeout)
    if report.problems:
        raise PreflightFailed(report.problems)
    return report
