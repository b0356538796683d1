"""From item results to the run summary: score, interval, Phase-0 metrics, warnings, totals."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..models import INFRA_STATUSES, STATUSES, ItemResult, Usage
from ..scoring import (
    ProblemOutcome,
    group_by_dataset,
    json_safe,
    metric_names,
    phase0_metrics,
    phase0_warnings,
    wilson_interval,
)
from ._document import RunSummary, ScoreInterval, Totals


def build_summary(items: Sequence[ItemResult], *, planned: int, wall_time_s: float) -> RunSummary:
    """Summarize finished items. ``planned`` counts the items the plan meant to run."""
    scored = [item for item in items if item.status not in INFRA_STATUSES]
    solved = sum(1 for item in scored if item.status == "success")
    overall = ci95 = None
    if scored:
        overall = round(100 * solved / len(scored), 2)
        low, high = wilson_interval(solved, len(scored))
        ci95 = ScoreInterval(low=round(100 * low, 2), high=round(100 * high, 2), method="wilson")
    counts = Counter(item.status for item in items)
    groups = group_by_dataset((item.dataset, _outcome(item)) for item in items)
    phase0: dict[str, dict[str, float | str | None]] = {}
    metrics: dict[str, float | str | None] = {}
    warnings: list[str] = []
    for dataset, problems in groups.items():
        values = phase0_metrics(problems, wall_time_s)
        phase0[dataset] = {name: json_safe(value) for name, value in values.items()}
        metrics |= {name: json_safe(value) for name, value in metric_names(dataset, values).items()}
        warnings += phase0_warnings(dataset, values)
    if len(items) < planned:
        warnings.append(
            f"{planned - len(items)} of {planned} planned items have no result "
            "(deselected, interrupted or stopped early); the score covers finished items only"
        )
    return RunSummary(
        overall_score=overall,
        ci95=ci95,
        items_total=len(items),
        items_planned=planned,
        status_counts={status: counts.get(status, 0) for status in STATUSES},
        phase0=phase0,
        metrics=metrics,
        warnings=warnings,
        totals=_totals([item.usage for item in items]),
        wall_time_s=round(wall_time_s, 3),
    )


def _outcome(item: ItemResult) -> ProblemOutcome:
    return ProblemOutcome(
        status=item.status,
        pass_ratio=item.pass_ratio,
        output_tokens=item.usage.completion_tokens,
        judge_time_s=item.judge_time_s,
    )


def _totals(usages: Sequence[Usage]) -> Totals:
    total = sum(usages, Usage())
    return Totals(
        calls=total.calls,
        prompt_tokens=total.prompt_tokens,
        completion_tokens=total.completion_tokens,
        cost_usd=total.cost_usd,
    )
