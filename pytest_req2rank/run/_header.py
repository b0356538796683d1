"""The run's header: the lines that say, before the first item, what the run will do."""

from __future__ import annotations

from ..models import (
    COMPLEXITIES,
    REFERENCE_MODEL,
    STATIC_JUDGE,
    WEAK_ISOLATION,
    GenerationConfig,
    IsolationLevel,
    ItemId,
    SandboxSpec,
)
from ..providers import parameter_notes
from ..settings import Settings
from ._evaluator import Evaluator


def header_lines(evaluator: Evaluator, *, stored: int | None = None,
                 baseline: str | None = None) -> list[str]:
    """The run's header: run id, seed, suite, model, judges, sandbox and the warnings known
    before the first item. ``stored``: the items a resumed run found in the store;
    ``baseline``: the line of a gated run."""
    settings, plan = evaluator.settings, evaluator.plan
    model = plan.model
    if settings.model_is_default:
        answers = ("version k of a task with the N-version library's implementation k" if
                   plan.nversion is not None else "each task's reference solution")
        model = (f"{REFERENCE_MODEL} (offline default: answers with {answers}; "
                 "pass --r2r-model=MODEL to benchmark a model)")
    resumed = [resume_line(evaluator, stored)] if stored is not None and settings.resume else []
    lines = [
        (f"req2rank: run {plan.run_id} | seed {plan.seed} | suite {plan.suite} "
         f"({_items_description(evaluator)}) | model {model}"),
        *resumed,
        *([baseline] if baseline is not None else []),
        f"req2rank: judges {panel_description(settings)}",
        sandbox_line(evaluator.sandbox.isolation_level, evaluator.sandbox.isolation,
                     settings.sandbox),
    ]
    warning = settings.identical_samples_warning(plan.samples)
    if warning:
        lines.append(f"req2rank: WARNING: {warning}")
    lines += parameter_lines(evaluator)
    if plan.nversion is not None:
        lines += nversion_lines(evaluator)
    return lines


def resume_line(evaluator: Evaluator, stored: int) -> str:
    """The header line of a resumed run: how many items it keeps, and runs again."""
    planned = len(evaluator.plan.item_ids)
    kept = len(evaluator.kept)
    again = stored - kept
    redo = f", {again} of them lost to infrastructure before" if again > 0 else ""
    return (f"req2rank: resuming {evaluator.plan.run_id}: {kept} of {planned} items kept (not "
            f"run again: deselected, their results stand), {planned - kept} to run{redo}")


def parameter_lines(evaluator: Evaluator) -> list[str]:
    """What the target model is sent where it differs from the options: a temperature it
    refuses left out, its budgets extended for reasoning or capped at its maximum, the
    reasoning effort (none for a model whose parameters go as given)."""
    settings = evaluator.settings
    budgets = set()
    for task in evaluator.tasks.values():
        level = COMPLEXITIES.get(str((task.spec or {}).get("complexity")))
        budgets.add(level.max_tokens if level is not None else settings.max_tokens)
    lines = []
    for model in settings.ranked_models:  # each model of a ranking run has its own
        notes = parameter_notes(model, budgets=budgets, temperature=settings.temperature,
                                api_base=settings.api_base,
                                reasoning_effort=settings.reasoning_effort)
        which = f" {model}" if settings.models else ""
        if notes:
            lines.append(f"req2rank: target model{which} parameters: {'; '.join(notes)}")
    return lines


def nversion_lines(evaluator: Evaluator) -> list[str]:
    """The header of an N-version run: what it runs, and which tasks repeat versions."""
    nversion = evaluator.equipment().nversion
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
    n = evaluator.plan.nversion
    nversion = evaluator.equipment().nversion if n is not None else None
    if nversion is None or n is None or not nversion.builtin:
        return None
    from ..nversion import repeated_tasks  # the library: only in N-version runs

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
    """``12 items``, or with several samples per task ``36 items: 12 tasks x 3 samples``
    (``72 items: 12 tasks x 3 samples x 2 models`` in a run of several models); an N-version
    run's ``585 items: 39 tasks x (5 versions + 10 ensemble checks)``."""
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
    models = len(evaluator.settings.ranked_models)
    by_model = f" x {models} models" if models > 1 else ""
    if tasks * evaluator.plan.samples * models == items:
        return f"{items} items: {tasks} tasks x {evaluator.plan.samples} samples{by_model}"
    return f"{items} items: {tasks} tasks, up to {evaluator.plan.samples} samples each{by_model}"


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
