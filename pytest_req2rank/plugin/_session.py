"""Setting up a run in a pytest process: settings, plan, evaluator, controller."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..draws import Draw, new_draw
from ..errors import ConfigurationError
from ..models import (
    COMPLEXITIES,
    INFRA_STATUSES,
    REFERENCE_MODEL,
    STATIC_JUDGE,
    WEAK_ISOLATION,
    GenerationConfig,
    IsolationLevel,
    ItemId,
    ItemResult,
    ModelSpec,
    SandboxSpec,
    SuiteSpec,
    Task,
)
from ..plan import RunPlan, SampleCounts, build_plan, planned_tasks, select_tasks
from ..providers import (
    PreflightModel,
    PreflightReport,
    SamplesProvider,
    check_model,
    parameter_notes,
    reset_breakers,
)
from ..settings import BaselinePlan, Settings, SettingsError, plan_like_baseline
from ..suites import DynamicOptions, SuiteError, TemplateLibraryError, load_suite
from ._config import load_settings, submit_asked
from ._controller import Controller, store_path
from ._evaluator import Evaluator
from ._keys import BASELINE_KEY, CONTROLLER_KEY, EVALUATOR_KEY, KEPT_INPUT
from ._preflight import check_outputs

if TYPE_CHECKING:
    from ..report import ResultsDocument


def configure_session(config: pytest.Config, draw: Draw | None = None, *,
                      preflight: bool = True) -> None:
    """Resolve settings, decide the seed, load the suite and freeze (or, on a worker, receive) the plan.

    ``draw``: the session's seed and run id when every process plans the run itself (a
    session set up while collecting, see :mod:`._activation`); otherwise the controller
    draws them here and ships the plan to its workers. ``preflight``: whether the controller
    calls the run's models once before the first item (``--r2r-preflight``); not when it
    takes up a run its workers have started.
    """
    reset_breakers()  # a new run: no model of this process has failed in it yet
    settings = load_settings(config)
    db = store_path(settings)
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and "r2r_plan" in workerinput:
        plan = RunPlan.model_validate(workerinput["r2r_plan"])
        tasks = _load_tasks(settings, plan.seed)
        evaluator = Evaluator(settings, plan, planned_tasks(plan, tasks), db,
                              kept=frozenset(workerinput.get(KEPT_INPUT, ())))
        evaluator.sandbox.prestart()  # warm while pytest collects
        config.stash[EVALUATOR_KEY] = evaluator
        return
    target = None
    if submit_asked(config) and workerinput is None:  # a missing hub or token: before any work
        from ._submitting import check_submittable, submission_target  # httpx: only to submit

        target = submission_target(config)
        check_submittable(settings)
    draw = draw or new_draw()
    baseline = _load_baseline(settings)
    if baseline is not None:  # planned as the baseline was, unless the user says otherwise
        gate = plan_like_baseline(settings, baseline[1].run.settings, baseline[1].run.seed,
                                  baseline[0])
        settings = gate.settings
        config.stash[BASELINE_KEY] = baseline_line(gate, *baseline)
    finished: list[ItemResult] = []
    kept: frozenset[str] = frozenset()
    submission = None
    if target is not None:  # the nonce, before the plan: the run's seed is drawn from it
        from ._submitting import start_submission  # as submission_target

        submission = start_submission(target, draw.run_id, settings)
    if settings.resume:
        plan, finished = _resumed_plan(settings, db)
        kept = kept_items(plan, finished)
        tasks = _load_tasks(settings, plan.seed)
    else:
        seed = submission.seed if submission is not None else (
            settings.seed if settings.seed is not None else draw.seed)
        if settings.nversion is not None:  # sample among the tasks, not among their items
            tasks = nversion_items(settings, select_tasks(_nversion_base(settings, seed),
                                                          settings.sample, seed))
            plan = build_plan(tasks, model=str(settings.model), suite=str(settings.suite),
                              seed=seed, sample=None, run_id=draw.run_id,
                              nversion=settings.nversion)
        else:
            tasks = _load_tasks(settings, seed)
            plan = build_plan(tasks, model=str(settings.model), suite=str(settings.suite),
                              seed=seed, sample=settings.sample, run_id=draw.run_id,
                              samples=_samples_per_task(settings))
    by_id = planned_tasks(plan, tasks)
    unknown = [item_id for item_id in plan.item_ids if item_id not in by_id]
    if unknown:
        raise SettingsError(f"--r2r-resume: the suite no longer holds item {unknown[0]!r} of the run")
    evaluator = Evaluator(settings, plan, by_id, db, kept=kept)
    task_ids = [by_id[item_id].task_id for item_id in plan.item_ids]
    _check_model(evaluator, task_ids)
    config.stash[EVALUATOR_KEY] = evaluator
    if workerinput is not None:  # a worker that planned the run itself
        evaluator.sandbox.prestart()
        return
    controller = Controller(settings, plan, evaluator.sandbox.isolation,
                            evaluator.sandbox.isolation_level,
                            baseline=baseline, finished=finished, kept=kept)
    repeats = nversion_repeat_warning(evaluator)
    controller.warnings += [repeats] if repeats else []
    check_outputs(settings, controller.paths)
    if preflight and settings.preflight and _runs_items(config):  # before the nonce, after the free checks
        controller.preflight = preflight_models(evaluator, task_ids)
    submitting = None
    if submission is not None:
        from ._submitting import SubmitPlugin  # as submission_target

        controller.listeners.append(submission.add)
        submitting = SubmitPlugin(controller, submission)
    config.stash[CONTROLLER_KEY] = controller
    from ._reporting import ControllerPlugin  # imports the report: only a controller needs it

    config.pluginmanager.register(ControllerPlugin(controller), "req2rank-controller")
    if submitting is not None:
        config.pluginmanager.register(submitting, submitting.name)


def _runs_items(config: pytest.Config) -> bool:
    """Whether this session runs items (not ``--collect-only``, ``--help``, ``--fixtures``…)."""
    option = config.option
    return not any(getattr(option, name, False) for name in (
        "collectonly", "help", "version", "showfixtures", "show_fixtures_per_test", "markers",
        "setupplan"))


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
    from ..report import load_results  # ~0.13 s, only for --r2r-baseline

    path = settings.baseline
    try:
        document = load_results(path)
    except ValueError as exc:
        raise SettingsError(f"--r2r-baseline: {exc}") from None
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
    summary = baseline.summary
    if summary.items_total < summary.items_planned:
        parts.append(f"the baseline finished {summary.items_total} of its "
                     f"{summary.items_planned} items, so at most {summary.items_total} pairs")
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
                f"--r2r-resume: no run {run_id!r} in {db}; pick a run id from the store "
                "(its runs table) or a results.json, and the same --r2r-db"
            )
        plan = RunPlan.model_validate_json(run["plan"])
        for field, stored, same in (
            ("model", plan.model, plan.model == settings.model.text),
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


def resume_line(evaluator: Evaluator, stored: int) -> str:
    """The header line of a resumed run: how many items it keeps, and runs again."""
    planned = len(evaluator.plan.item_ids)
    kept = len(evaluator.kept)
    again = stored - kept
    redo = f", {again} of them lost to infrastructure before" if again > 0 else ""
    return (f"req2rank: resuming {evaluator.plan.run_id}: {kept} of {planned} items kept (not "
            f"run again: deselected, their results stand), {planned - kept} to run{redo}")


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
        ("--r2r-model", settings.model, settings.api_base, task_ids)]
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


def _check_model(evaluator: Evaluator, task_ids: list[str]) -> None:
    """Check the model, the generator and the judges once, up front, so a broken samples
    file, an unroutable model name or a model missing from the fake script is one clear
    error rather than one failure per item. Builds no provider of the run (nor its store)."""
    settings = evaluator.settings
    for option, model, api_base, ids in _models_of_run(settings, task_ids):
        effort = settings.reasoning_effort if option == "--r2r-model" else None
        try:
            check_model(model, api_base=api_base, task_ids=ids, reasoning_effort=effort)
        except ConfigurationError as exc:
            raise SettingsError(f"{option}: {exc}") from None


def preflight_models(evaluator: Evaluator, task_ids: list[str]) -> PreflightReport:
    """Call every remote model of the run once (:func:`~pytest_req2rank.providers.preflight`);
    raise :class:`~pytest_req2rank.providers.PreflightFailed`, one line per model that
    cannot answer."""
    from ..providers import PreflightFailed, preflight  # as the adapter: on the first call

    settings = evaluator.settings
    elaborates = any(task.form == "requirement" for task in evaluator.tasks.values())
    report = preflight(
        [PreflightModel(str(model), api_base, (option,), option == "--r2r-embedding-model",
                        "--r2r-embedding-api-base" if option == "--r2r-embedding-model"
                        else "--r2r-api-base")
         for option, model, api_base, _ in _models_of_run(settings, task_ids)
         if option != "--r2r-generator" or elaborates],  # a static suite never calls it
        concurrency=settings.concurrency, timeout_s=settings.timeout)
    if report.problems:
        raise PreflightFailed(report.problems)
    return report


def header_lines(config: pytest.Config) -> list[str]:
    evaluator: Evaluator | None = config.stash.get(EVALUATOR_KEY, None)
    if evaluator is None:
        return []
    settings, plan = evaluator.settings, evaluator.plan
    model = plan.model
    if settings.model_is_default:
        answers = ("version k of a task with the N-version library's implementation k" if
                   plan.nversion is not None else "each task's reference solution")
        model = (f"{REFERENCE_MODEL} (offline default: answers with {answers}; "
                 "pass --r2r-model=MODEL to benchmark a model)")
    controller: Controller | None = config.stash.get(CONTROLLER_KEY, None)
    resumed = ([resume_line(evaluator, len(controller.items))]
               if controller is not None and settings.resume else [])
    lines = [
        f"req2rank: run {plan.run_id} | seed {plan.seed} | suite {plan.suite} "
        f"({_items_description(evaluator)}) | model {model}",
        *resumed,
        *([config.stash[BASELINE_KEY]] if BASELINE_KEY in config.stash else []),
        f"req2rank: judges {panel_description(settings)}",
        sandbox_line(evaluator.sandbox.isolation_level, evaluator.sandbox.isolation,
                     settings.sandbox),
    ]
    warning = settings.identical_samples_warning(plan.samples)
    if warning:
        lines.append(f"req2rank: WARNING: {warning}")
    lines += parameter_lines(evaluator)
    if evaluator.nversion is not None:
        lines += nversion_lines(evaluator)
    return lines


def parameter_lines(evaluator: Evaluator) -> list[str]:
    """What the target model is sent where it differs from the options: a temperature it
    refuses left out, its budgets extended for reasoning or capped at its maximum, the
    reasoning effort (none for a model whose parameters go as given)."""
    settings = evaluator.settings
    budgets = set()
    for task in evaluator.tasks.values():
        level = COMPLEXITIES.get(str((task.spec or {}).get("complexity")))
        budgets.add(level.max_tokens if level is not None else settings.max_tokens)
    notes = parameter_notes(settings.model, budgets=budgets, temperature=settings.temperature,
                            api_base=settings.api_base,
                            reasoning_effort=settings.reasoning_effort)
    return [f"req2rank: target model parameters: {'; '.join(notes)}"] if notes else []


def nversion_lines(evaluator: Evaluator) -> list[str]:
    """The header of an N-version run: what it runs, and which tasks repeat versions."""
    nversion = evaluator.nversion
    assert nversion is not None and evaluator.plan.nversion is not None
    n = evaluator.plan.nversion
    planned = [ItemId.parse(item_id) for item_id in evaluator.plan.item_ids]
    patterns = sorted({i.pattern for i in planned if i.pattern}, key=lambda p: (p[4] == "A", p))
    source = (f"versions from the library of {len(nversion.library)} tasks (built-in model)"
              if nversion.builtin else _pipeline_source(nversion.generation)
              if nversion.pipelined else "versions: one plain prompt per version, its own "
              "sample index and seed")
    lines = [(f"req2rank: N-version: {n} versions per task, {len({i.task for i in planned})} "
              f"tasks | patterns {', '.join(patterns) or 'none'} | {source}"),
             diversity_line(evaluator.settings)]
    warning = nversion_repeat_warning(evaluator)
    if warning:
        lines.append(f"req2rank: WARNING: {warning}")
    return lines


def diversity_line(settings: Settings) -> str:
    """Which models measure SDP and MBCS, or why they are not measured."""
    judge, how = settings.sdp_judge_model()
    sdp = f"SDP judged by {judge} ({how})" if judge else f"SDP not measured ({how})"
    mbcs = (f"MBCS by {settings.embedding_model}" if settings.embedding_model else
            "MBCS not measured (no --r2r-embedding-model)")
    return f"req2rank: N-version diversity: LS, structural similarity | {sdp} | {mbcs}"


def _pipeline_source(config: GenerationConfig) -> str:
    """How the generation pipeline is set, in one phrase of the header."""
    thoughts = "N" if config.thoughts is None else str(config.thoughts)
    return (f"versions from the generation pipeline (HILE {thoughts} ideas x "
            f"{config.solutions} plans x {config.implementations} programs; IRQN theta "
            f"{config.theta_diff}/{config.theta_ident}, p_qn {config.p_qn1}/{config.p_qn2}, "
            f"J {config.irqn_iterations}; repairs {config.repairs}, retries {config.retries}, "
            f"rollbacks {config.rollbacks})")


def nversion_repeat_warning(evaluator: Evaluator) -> str | None:
    """The built-in model's repeats: the tasks with fewer distinct implementations than N."""
    from ..nversion import repeated_tasks  # as nversion_lines

    nversion, n = evaluator.nversion, evaluator.plan.nversion
    if nversion is None or n is None or not nversion.builtin:
        return None
    task_ids = list(dict.fromkeys(task.task_id for task in evaluator.tasks.values()))
    return repeat_warning(repeated_tasks(task_ids, n, nversion.library), n)


def repeat_warning(repeated: dict[str, int], n: int) -> str | None:
    """One line naming the tasks whose N versions repeat implementations (None: none do)."""
    if not repeated:
        return None
    named = ", ".join(f"{task_id} ({count})" for task_id, count in repeated.items())
    return (f"N={n} exceeds the distinct implementations of {len(repeated)} task(s), whose "
            f"versions repeat them (the diversity metrics show it): {named}")


def _items_description(evaluator: Evaluator) -> str:
    """``12 items``, or with several samples per task ``36 items: 12 tasks x 3 samples``; an
    N-version run's ``585 items: 39 tasks x (5 versions + 10 ensemble checks)``."""
    items = len(evaluator.plan.item_ids)
    n = evaluator.plan.nversion
    if n is not None:
        tasks = len({task.task_id for task in evaluator.tasks.values()})
        checks = items - tasks * n
        return (f"{items} items: {tasks} tasks x ({n} versions + {checks // tasks if tasks else 0}"
                " ensemble checks)")
    if evaluator.plan.samples == 1:
        return f"{items} items"
    tasks = len({task.task_item_id for task in evaluator.tasks.values()})
    if tasks * evaluator.plan.samples == items:
        return f"{items} items: {tasks} tasks x {evaluator.plan.samples} samples"
    return f"{items} items: {tasks} tasks, up to {evaluator.plan.samples} samples each"


def sandbox_line(level: IsolationLevel, description: str, sandbox: SandboxSpec) -> str:
    """The header's sandbox line: the isolation level first, a warning when it is weak."""
    if level in WEAK_ISOLATION:
        warning = "" if "WARNING" in description else "WARNING: "
        return (f"req2rank: sandbox isolation {level}, weaker than the default (full), chosen by "
                f"--r2r-sandbox={sandbox} | {warning}{description}")
    return f"req2rank: sandbox isolation {level} | {description}"


def panel_description(settings: Settings) -> str:
    """The judge panel as the header states it, saying when it is the default."""
    panel = settings.panel()
    if not panel:
        if settings.judges is None:
            return ("none (static suite: the score is 100 x accepted@1; "
                    "pass --r2r-judges=MODEL,... for a judge panel)")
        return "none (--r2r-judges=none: the score is the hidden tests' pass ratio)"
    blend = (f"functionality and logic {100 * settings.execution_weight:.0f}% hidden tests, "
             f"{100 * (1 - settings.execution_weight):.0f}% judges")
    if settings.judges is None:
        return (f"{STATIC_JUDGE} (default: static analysis and execution evidence; "
                f"pass --r2r-judges=MODEL,... for LLM judges) | {blend}")
    excluded = " | judges of the target's family excluded" if settings.exclude_self_judging else ""
    return f"{', '.join(panel)} | {blend}{excluded}"
