"""All Phase-0 metrics of one dataset at once, and their alert thresholds (ARCHITECTURE.md, Metrics 5.3 and 6)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..models import INFRA_STATUSES
from ._metrics import (
    ERROR_DISTRIBUTION_STATUSES,
    accepted_at_1,
    api_error_rate,
    avg_total_gen_tokens,
    avg_total_judge_time,
    cost_per_solved_judge_time,
    cost_per_solved_tokens,
    error_distribution,
    exec_success_rate,
    p50_total_judge_time,
    p95_total_judge_time,
    p99_total_judge_time,
    pass_ratio_mean,
    pass_ratio_p50,
    pass_ratio_p90,
    sandbox_error_rate,
    throughput,
)

Metrics = dict[str, float | None]


@dataclass(frozen=True)
class ProblemOutcome:
    """What the Phase-0 metrics need to know about one problem."""

    status: str
    pass_ratio: float
    output_tokens: int | None
    judge_time_s: float


@dataclass(frozen=True)
class Threshold:
    """A metric's normal bound and alert bound (Metrics 5.3): normal below ``normal``, alert above ``alert``."""

    metric: str
    normal: float
    alert: float


THRESHOLDS: tuple[Threshold, ...] = (
    Threshold("api_error_rate", normal=0.01, alert=0.05),
    Threshold("sandbox_error_rate", normal=0.005, alert=0.02),
    Threshold("timeout_rate", normal=0.15, alert=0.30),
)


def phase0_metrics(problems: Sequence[ProblemOutcome], wall_clock_s: float | None) -> Metrics:
    """Every Phase-0 metric of one dataset, keyed by their names in ARCHITECTURE.md's Metrics section.

    Quality, error distribution and cost are computed over the problems the
    model is accountable for (infrastructure failures left out); reliability
    rates over all problems. Undefined values are ``None``; ``cost_per_solved_*``
    is ``math.inf`` when nothing was solved.
    """
    scored = [p for p in problems if p.status not in INFRA_STATUSES]
    ratios = [p.pass_ratio for p in scored]
    statuses = [p.status for p in problems]
    tokens = [p.output_tokens for p in scored]
    times = [p.judge_time_s for p in scored]
    solved = [p.status == "success" for p in scored]
    distribution = error_distribution(statuses)
    metrics: Metrics = {
        "accepted_at_1": accepted_at_1(ratios),
        "pass_ratio_mean": pass_ratio_mean(ratios),
        "pass_ratio_p50": pass_ratio_p50(ratios),
        "pass_ratio_p90": pass_ratio_p90(ratios),
        "exec_success_rate": exec_success_rate(statuses),
    }
    for status in ERROR_DISTRIBUTION_STATUSES:
        metrics[f"{status}_rate"] = distribution.get(f"{status}_rate")
    metrics |= {
        "avg_total_gen_tokens": avg_total_gen_tokens(tokens),
        "avg_total_judge_time": avg_total_judge_time(times),
        "p50_total_judge_time": p50_total_judge_time(times),
        "p95_total_judge_time": p95_total_judge_time(times),
        "p99_total_judge_time": p99_total_judge_time(times),
        "throughput": throughput(len(problems), wall_clock_s) if problems else None,
        "cost_per_solved_tokens": cost_per_solved_tokens(tokens, solved),
        "cost_per_solved_judge_time": cost_per_solved_judge_time(times, solved),
        "api_error_rate": api_error_rate(statuses),
        "sandbox_error_rate": sandbox_error_rate(statuses),
    }
    return metrics


def phase0_warnings(dataset: str, metrics: Mapping[str, float | str | None]) -> list[str]:
    """One line per metric outside its normal range, marked ALERT past the alert bound
    (``metrics`` as computed, or as the results JSON keeps them)."""
    warnings = []
    for threshold in THRESHOLDS:
        value = metrics.get(threshold.metric)
        if not isinstance(value, float | int) or value < threshold.normal:
            continue
        level = "ALERT" if value > threshold.alert else "elevated"
        warnings.append(
            f"{level}: eval/{dataset}/{threshold.metric} = {value:.1%} "
            f"(normal < {threshold.normal:.1%}, alert > {threshold.alert:.0%})"
        )
    return warnings


def metric_names(dataset: str, metrics: Mapping[str, float | None]) -> dict[str, float | None]:
    """The flat ``eval/{dataset}/{metric}`` names of the spec's logging convention."""
    return {f"eval/{dataset}/{name}": value for name, value in metrics.items()}


def json_safe(value: float | None) -> float | str | None:
    """JSON has no infinity: ``inf`` becomes the string ``"inf"`` (as the results schema says)."""
    if value is not None and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def group_by_dataset(
    records: Iterable[tuple[str, ProblemOutcome]],
) -> dict[str, list[ProblemOutcome]]:
    """Problems per dataset, datasets in order of first appearance."""
    groups: dict[str, list[ProblemOutcome]] = {}
    for dataset, problem in records:
        groups.setdefault(dataset, []).append(problem)
    return groups
