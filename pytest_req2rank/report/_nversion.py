"""The N-version summary of a run: per fault pattern over tasks (``nversion.aggregate``) and
the versions' diversity per task, from the ensemble items' records."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from statistics import fmean
from typing import TYPE_CHECKING, TypedDict

from pydantic import BaseModel, ConfigDict, Field

from ..models import INFRA_STATUSES, GenerationRecord, ItemResult, MBCSResult, SDPResult, Usage

if TYPE_CHECKING:
    from ..nversion import PatternRun

LEVENSHTEIN = "levenshtein"
STRUCTURAL = "codebleu-syntax-dataflow"
"""``nversion.STRUCTURAL`` (kept here: the report loads without the N-version engine)."""


class PatternReport(BaseModel):
    """One fault pattern over the tasks whose ensemble check ran (definitions: docs/nversion.md)."""

    model_config = ConfigDict(extra="forbid")

    pattern: str
    family: str = Field(description="code (Pat-CL) or algorithm (Pat-AL)")
    tasks: int
    correct: int = Field(description="Tasks whose voted output is correct on every input")
    no_consensus: int = Field(description="Tasks with an input without a strict majority")
    fr: float
    mcr: float
    ccr: float
    tpr: float
    afvr: float
    faults: int = Field(description="Faults injected over the tasks")
    missing: int = Field(description="Faults wanted but not injected (no killable mutant, a "
                         "common-mode failure that does not apply); reasons in the items")


class TaskDiversity(BaseModel):
    """The diversity of one task's N versions: mean pairwise similarities (diversity = 1 -
    similarity), SDP and MBCS."""

    model_config = ConfigDict(extra="forbid")

    task: str
    levenshtein: float | None = Field(description="LS: mean of 1 - edit distance / longer length")
    structural: float | None = Field(description=f"{STRUCTURAL} (not MBCS: no embedding model)")
    sdp: SDPResult | None = Field(default=None, description="SDP from an LLM judge per pair; "
                                  "absent in results written before it was recorded")
    mbcs: MBCSResult | None = Field(default=None, description="MBCS from an embedding model; "
                                    "absent in results written before it was recorded")


class GenerationSummary(BaseModel):
    """The generation pipeline over a run's tasks (a remote model's versions): the state
    machine's steps and what the accepted versions cost."""

    model_config = ConfigDict(extra="forbid")

    tasks: int = Field(description="Tasks whose versions the pipeline generated")
    errors: int = Field(description="Tasks whose pipeline ended in error")
    transitions: int
    retries: int
    rollbacks: int
    candidates: int = Field(description="Programs the model wrote (IRQN's regenerations included)")
    irqn: dict[str, int] = Field(description="IRQN decisions: unjudged, retain, question, negate")
    repair_iterations: int
    repaired: int = Field(description="Versions passing only after repair")
    accepted: int = Field(description="Versions passing the task's tests")
    calls: int
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: float | None
    tokens_per_accepted: float | None = Field(description="Prompt and completion tokens of "
                                              "every call, per accepted version")
    cost_per_accepted: float | None = Field(description="Cost of every call, per accepted "
                                            "version, in USD")


class NVersionSummary(BaseModel):
    """An N-version run's tables: patterns (code and algorithm level) and diversity."""

    model_config = ConfigDict(extra="forbid")

    versions: int = Field(description="N, versions per task")
    tasks: int = Field(description="Tasks with at least one ensemble check counted")
    version_items: int
    versions_passed: int = Field(description="Version items whose code passed the task's tests")
    left_out: int = Field(description="Ensemble checks lost to infrastructure (api_error, "
                          "sandbox_error), not counted in the patterns' metrics")
    ensemble_items: int = Field(default=0, description="Ensemble checks finished, measured or "
                                "left out (absent in results written before it was recorded)")
    ensemble_planned: int = Field(default=0, description="Ensemble checks of the plan: tasks x "
                                  "patterns (absent in results written before it was recorded)")
    patterns: list[PatternReport]
    diversity: list[TaskDiversity]
    mean_levenshtein: float | None
    mean_structural: float | None
    structural_measure: str = STRUCTURAL
    mean_sdp: float | None = Field(default=None, description="Mean SDP over the tasks where "
                                   "a pair was judged")
    sdp_judge: str | None = Field(default=None, description="The model that judged SDP's pairs")
    sdp_pairs: int = Field(default=0, description="Pairs over the tasks")
    sdp_judged: int = Field(default=0, description="Pairs with a verdict")
    sdp_parse_failures: int = Field(default=0, description="Pairs whose answer was unreadable")
    sdp_call_failures: int = Field(default=0, description="Pairs whose call failed")
    sdp_note: str | None = Field(default=None, description="Why SDP is not measured, or its "
                                 "first failure")
    mean_mbcs: float | None = Field(default=None, description="Mean MBCS over the tasks where "
                                    "it was measured")
    embedding_model: str | None = Field(default=None, description="MBCS's embedding model")
    mbcs_failed: int = Field(default=0, description="Tasks whose embedding call failed")
    mbcs_note: str | None = Field(default=None, description="Why MBCS is not measured, or its "
                                  "first error")
    generation: GenerationSummary | None = Field(
        default=None, description="The generation pipeline's statistics; None when no "
        "version came from it (the built-in model, --r2r-nv-method=plain)")


def nversion_summary(items: Sequence[ItemResult], versions: int, *,
                     ensemble_planned: int = 0) -> NVersionSummary:
    """The N-version summary of a run's finished ``items`` with ``versions`` per task, whose
    plan holds ``ensemble_planned`` ensemble checks."""
    # tree-sitter and the library: only a run with N-version items loads them
    from ..nversion import PatternRun, TaskExperiment, aggregate

    version_items = [i for i in items if i.nversion is not None and i.nversion.role == "version"]
    ensembles = [i for i in items if i.nversion is not None and i.nversion.role == "ensemble"]
    counted = [i for i in ensembles if i.status not in INFRA_STATUSES and i.nversion
               and i.nversion.run is not None]
    runs: dict[str, list[PatternRun]] = {}
    diversity: dict[str, dict[str, float]] = {}
    sdps: dict[str, SDPResult] = {}
    mbcses: dict[str, MBCSResult] = {}
    for item in counted:
        record = item.nversion
        assert record is not None and record.run is not None
        runs.setdefault(item.task_id, []).append(PatternRun.model_validate(record.run))
        diversity.setdefault(item.task_id, record.diversity or {})
        if record.sdp is not None:
            sdps.setdefault(item.task_id, record.sdp)
        if record.mbcs is not None:
            mbcses.setdefault(item.task_id, record.mbcs)
    experiments = [
        TaskExperiment(task_id=task_id, versions=versions, inputs=0, reference_raised=0,
                       failing_before=task_runs[0].outcome.failing_before,
                       runs=tuple(task_runs))
        for task_id, task_runs in runs.items()]
    by_name: dict[str, list[PatternRun]] = {run.pattern: [] for task_runs in runs.values() for run in task_runs}
    for task_runs in runs.values():
        for run in task_runs:
            by_name[run.pattern].append(run)
    patterns = [
        PatternReport(**metrics.model_dump(), family="code" if "CL" in metrics.pattern
                      else "algorithm",
                      faults=sum(len(r.injection.faults) for r in by_name[metrics.pattern]),
                      missing=sum(len(r.injection.missing) for r in by_name[metrics.pattern]))
        for metrics in aggregate(experiments)]
    patterns.sort(key=lambda p: (p.family != "code", p.pattern))
    rows = [TaskDiversity(task=task_id, levenshtein=values.get(LEVENSHTEIN),
                          structural=values.get(STRUCTURAL), sdp=sdps.get(task_id),
                          mbcs=mbcses.get(task_id))
            for task_id, values in diversity.items()]
    return NVersionSummary(
        versions=versions, tasks=len(runs), version_items=len(version_items),
        versions_passed=sum(i.status == "success" for i in version_items),
        left_out=len(ensembles) - len(counted), ensemble_items=len(ensembles),
        ensemble_planned=ensemble_planned, patterns=patterns, diversity=rows,
        mean_levenshtein=_mean(r.levenshtein for r in rows),
        mean_structural=_mean(r.structural for r in rows),
        **_sdp_fields(list(sdps.values())), **_mbcs_fields(list(mbcses.values())),
        generation=generation_summary(version_items))


def diversity_usage(items: Iterable[ItemResult]) -> Usage:
    """The model calls made for SDP and MBCS over ``items``."""
    return sum((i.nversion.diversity_usage for i in items
                if i.nversion is not None and i.nversion.diversity_usage is not None), Usage())


class _SDPFields(TypedDict):
    mean_sdp: float | None
    sdp_judge: str | None
    sdp_pairs: int
    sdp_judged: int
    sdp_parse_failures: int
    sdp_call_failures: int
    sdp_note: str | None


class _MBCSFields(TypedDict):
    mean_mbcs: float | None
    embedding_model: str | None
    mbcs_failed: int
    mbcs_note: str | None


def _sdp_fields(results: list[SDPResult]) -> _SDPFields:
    notes = [r.reason for r in results if r.reason]
    return {
        "mean_sdp": _mean(r.sdp for r in results),
        "sdp_judge": next((r.judge for r in results if r.judge), None),
        "sdp_pairs": sum(r.pairs for r in results),
        "sdp_judged": sum(r.judged for r in results),
        "sdp_parse_failures": sum(r.parse_failures for r in results),
        "sdp_call_failures": sum(r.call_failures for r in results),
        "sdp_note": notes[0] if notes else None}


def _mbcs_fields(results: list[MBCSResult]) -> _MBCSFields:
    notes = [r.reason for r in results if r.reason]
    return {
        "mean_mbcs": _mean(r.mbcs for r in results),
        "embedding_model": next((r.model for r in results if r.model), None),
        "mbcs_failed": sum(r.status == "failed" for r in results),
        "mbcs_note": notes[0] if notes else None}


def generation_summary(version_items: Sequence[ItemResult]) -> GenerationSummary | None:
    """The pipeline's statistics over the version items that carry its record (one record
    per task: every version of a task carries the same one)."""
    pipelined = [i for i in version_items if i.nversion and i.nversion.generation]
    if not pipelined:
        return None
    records: dict[str, GenerationRecord] = {}
    for item in pipelined:
        assert item.nversion is not None and item.nversion.generation is not None
        records.setdefault(item.nversion.task, item.nversion.generation)
    irqn: dict[str, int] = {}
    for record in records.values():
        for name, count in record.irqn.items():
            irqn[name] = irqn.get(name, 0) + count
    accepted = sum(i.status == "success" for i in pipelined)
    prompt = _total(r.prompt_tokens for r in records.values())
    completion = _total(r.completion_tokens for r in records.values())
    cost = _total(r.cost_usd for r in records.values())
    tokens = None if prompt is None and completion is None else (prompt or 0) + (completion or 0)
    return GenerationSummary(
        tasks=len(records), errors=sum(r.end == "error" for r in records.values()),
        transitions=sum(len(r.transitions) for r in records.values()),
        retries=sum(r.retries for r in records.values()),
        rollbacks=sum(r.rollbacks for r in records.values()),
        candidates=sum(r.candidates for r in records.values()), irqn=irqn,
        repair_iterations=sum(r.repair_iterations for r in records.values()),
        repaired=sum(bool(i.nversion and i.nversion.lineage and i.nversion.lineage.repaired)
                     for i in pipelined),
        accepted=accepted, calls=sum(r.calls for r in records.values()),
        prompt_tokens=None if prompt is None else int(prompt),
        completion_tokens=None if completion is None else int(completion), cost_usd=cost,
        tokens_per_accepted=round(tokens / accepted, 3) if tokens is not None and accepted
        else None,
        cost_per_accepted=cost / accepted if cost is not None and accepted else None)


def _total(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _mean(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(fmean(known), 6) if known else None
