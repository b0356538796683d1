"""From item results to the run summary: score, interval, Phase-0 metrics, warnings, totals."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..models import INFRA_STATUSES, STATUSES, ItemId, ItemResult, Status, Usage
from ..scoring import (
    PASS_AT_K,
    ProblemOutcome,
    agreement_band,
    bootstrap_ci,
    detectable_difference,
    group_by_dataset,
    json_safe,
    like_model_sd,
    metric_names,
    paired_difference_sd,
    pass_at_k,
    phase0_metrics,
    phase0_warnings,
    wilson_interval,
)
from ._document import (
    DetectableDifference,
    ItemRole,
    ModelSummary,
    PassAtK,
    Role,
    RunSummary,
    ScoreInterval,
)
from ._judging import dimension_scores, judge_usage, judging_summary, totals_of


def build_summary(
    items: Sequence[ItemResult], *, planned: int, wall_time_s: float, seed: int = 0,
    diversity: Usage | None = None, with_pass_at_k: bool = True, preflight: Usage | None = None,
    planned_by_model: Mapping[str, int] | None = None,
) -> RunSummary:
    """Summarize finished items. ``planned`` counts the items the plan meant to run;
    ``seed`` makes the bootstrap interval reproducible; ``diversity``: an N-version run's
    calls for SDP and MBCS (a role of their own in the totals); ``with_pass_at_k`` False leaves
    pass@k out (an N-version run's versions are no samples of one answer); ``preflight``: the
    calls that checked the models before the first item (a role of their own).

    A run of several models (items ``ITEM@MODEL``) gets each model's own summary
    (``by_model``, in the order of ``planned_by_model``: each model's planned items, else as
    the items first name them), and its warnings name the model whose metric is out of range."""
    pooled = model_summary(items, planned=planned, wall_time_s=wall_time_s, seed=seed,
                           with_pass_at_k=with_pass_at_k)
    roles: dict[Role, Usage] = dict(role_usage(items).items())
    if diversity is not None:
        roles["diversity"] = diversity
    if preflight is not None:
        roles["preflight"] = preflight
    by_model = models_summary(items, wall_time_s=wall_time_s, seed=seed,
                              with_pass_at_k=with_pass_at_k, planned=planned_by_model)
    warnings = list(pooled.warnings)
    if by_model is not None:  # each model's alerts in place of the pooled rates'
        pooled_alerts = alerts(pooled)
        warnings = [f"{model}: {alert}" for model, own in by_model.items()
                    for alert in alerts(own)] + [w for w in warnings if w not in pooled_alerts]
    fallbacks = generator_fallback_warning(items)
    warnings += [fallbacks] if fallbacks else []
    if len(items) < planned:
        warnings.append(
            f"{planned - len(items)} of {planned} planned items have no result "
            "(deselected, interrupted or stopped early); the score covers finished items only"
        )
    shared = {name: getattr(pooled, name) for name in ModelSummary.model_fields}
    return RunSummary(**shared | {
        "detectable_difference": run_detectable_difference(items),
        "warnings": warnings,
        "totals": totals_of(sum(roles.values(), Usage())),
        "totals_by_role": {name: totals_of(usage) for name, usage in roles.items()},
        "by_model": by_model,
        "wall_time_s": round(wall_time_s, 3),
    })


def alerts(summary: ModelSummary) -> list[str]:
    """The Phase-0 metrics of ``summary`` outside their normal range, one line each."""
    return [alert for dataset, values in summary.phase0.items()
            for alert in phase0_warnings(dataset, values)]


def models_summary(items: Sequence[ItemResult], *, wall_time_s: float, seed: int,
                   with_pass_at_k: bool = True, planned: Mapping[str, int] | None = None
                   ) -> dict[str, ModelSummary] | None:
    """Each model's summary in a run of several models (items ``ITEM@MODEL``), over the items
    it answered; ``planned``: each model's planned items, in the run's order (else each model's
    finished items, in the order the items first name them). None for a run of one model."""
    answered: dict[str, list[ItemResult]] = {model: [] for model in planned or {}}
    for item in items:
        model = model_of(item)
        if model is not None:
            answered.setdefault(model, []).append(item)
    if len(answered) < 2:
        return None
    return {model: model_summary(own, planned=(planned or {}).get(model, len(own)),
                                 wall_time_s=wall_time_s, seed=seed,
                                 with_pass_at_k=with_pass_at_k)
            for model, own in answered.items()}


def model_summary(items: Sequence[ItemResult], *, planned: int, wall_time_s: float, seed: int,
                  with_pass_at_k: bool = True) -> ModelSummary:
    """The summary of one model's ``items`` (``planned`` of them were asked): the figures a
    run of that model alone reports; ``wall_time_s`` is the run's."""
    overall, ci95 = run_score(items, seed=seed)
    roles = role_usage(items)
    datasets = dataset_figures(items, wall_time_s, with_pass_at_k=with_pass_at_k)
    judging, judging_warnings = judging_summary(items)
    return ModelSummary(
        overall_score=overall,
        ci95=ci95,
        dimensions=dimension_scores(items),
        agreement=agreement_band(judging.sigma) if judging and judging.sigma is not None else None,
        items_total=len(items),
        items_planned=planned,
        status_counts=status_counts(items),
        phase0=datasets.phase0,
        pass_at_k=datasets.pass_at_k,
        metrics=datasets.metrics,
        warnings=[*datasets.warnings, *judging_warnings],
        totals=totals_of(sum(roles.values(), Usage())),
        totals_by_role={name: totals_of(usage) for name, usage in roles.items()},
        judging=judging,
    )


@dataclass(frozen=True)
class DatasetFigures:
    """The Phase-0 metrics and pass@k of some items, per dataset, and the alerts they raise."""

    phase0: dict[str, dict[str, float | str | None]]
    pass_at_k: dict[str, PassAtK]
    metrics: dict[str, float | str | None]
    """Flat ``eval/{dataset}/{metric}`` names, pass@k among them."""
    warnings: list[str]


def dataset_figures(items: Sequence[ItemResult], wall_time_s: float, *,
                    with_pass_at_k: bool = True) -> DatasetFigures:
    """The Phase-0 metrics of ``items`` per dataset (throughput over ``wall_time_s``), their
    flat names and alerts, and pass@k unless ``with_pass_at_k`` is False."""
    groups = group_by_dataset((item.dataset, _outcome(item)) for item in items)
    phase0: dict[str, dict[str, float | str | None]] = {}
    metrics: dict[str, float | str | None] = {}
    warnings: list[str] = []
    for dataset, problems in groups.items():
        values = phase0_metrics(problems, wall_time_s)
        phase0[dataset] = {name: json_safe(value) for name, value in values.items()}
        metrics |= {name: json_safe(value) for name, value in metric_names(dataset, values).items()}
        warnings += phase0_warnings(dataset, values)
    passes = pass_at_k_by_dataset(items) if with_pass_at_k else {}
    for dataset, report in passes.items():
        metrics |= {f"eval/{dataset}/{name}": value for name, value in report.values.items()}
    return DatasetFigures(phase0, passes, metrics, warnings)


def role_usage(items: Sequence[ItemResult]) -> dict[ItemRole, Usage]:
    """The calls made for ``items``, per role: the target model, the judges, the generator."""
    return {
        "target": sum((item.usage for item in items), Usage()),
        "judges": judge_usage(items),
        "generator": sum((item.generator_usage for item in items), Usage()),
    }


def status_counts(items: Sequence[ItemResult]) -> dict[Status, int]:
    """Items per final status, every status named (zero when none has it)."""
    counts = Counter(item.status for item in items)
    return {status: counts.get(status, 0) for status in STATUSES}


def generator_fallback_warning(items: Sequence[ItemResult]) -> str | None:
    """How many requirements the generator failed to elaborate (their items ran the offline
    template variant instead), and why, most frequent reason first; None when none fell back."""
    elaborated = [item.provenance for item in items if item.provenance]
    reasons = Counter(str(p.get("fallback_reason") or "no reason recorded").removesuffix(
        "; using the offline template variant") for p in elaborated if p.get("source") == "fallback")
    if not reasons:
        return None
    generator = next((str(p.get("generator")) for p in elaborated if p.get("generator")), "?")
    shown = "; ".join(f"{count}x {reason}" for reason, count in reasons.most_common(2))
    more = f"; and {len(reasons) - 2} other reasons" if len(reasons) > 2 else ""
    return (f"generator {generator} fell back to the offline template variant for "
            f"{reasons.total()} of {len(elaborated)} requirements: {shown}{more}")


def pass_at_k_by_dataset(items: Iterable[ItemResult], ks: Iterable[int] = PASS_AT_K
                         ) -> dict[str, PassAtK]:
    """pass@k per dataset: each task's samples ``n`` and correct ones ``c`` (status success),
    infrastructure failures left out of ``n`` (they are no sample of the model); a task
    with no sample left is left out. ``ks``: the k to report, each up to the fewest samples.
    In a run of several models, each model's answers to a task are its own samples."""
    counts: dict[str, dict[tuple[str, str], list[int]]] = {}
    for item in items:
        if item.status not in INFRA_STATUSES:
            task = counts.setdefault(item.dataset, {}).setdefault((item.task_id, item.model),
                                                                  [0, 0])
            task[0] += 1
            task[1] += item.status == "success"
    ks = tuple(ks)
    reports = {}
    for dataset, tasks in counts.items():
        pairs = [(n, c) for n, c in tasks.values()]
        reports[dataset] = PassAtK(
            tasks=len(pairs), samples=sum(n for n, _ in pairs), correct=sum(c for _, c in pairs),
            min_samples=min(n for n, _ in pairs), max_samples=max(n for n, _ in pairs),
            values={f"pass@{k}": value for k, value in pass_at_k(pairs, ks).items()},
        )
    return reports


def run_score(items: Sequence[ItemResult], *, seed: int) -> tuple[float | None, ScoreInterval | None]:
    """The run's score (mean item score) and its 95 % interval.

    Pass/fail items (static suites without a panel) asked once per task get a Wilson
    interval; judged items, and samples (several per task, not independent), a bootstrap
    clustered by requirement (task), seeded by the run.
    """
    scored = [item for item in items if item.score is not None]
    if not scored:
        return None, None
    scores = [item.score for item in scored if item.score is not None]
    if all(item.kind == "static" and item.panel is None and item.sample is None
           for item in scored):
        solved = sum(1 for score in scores if score == 100.0)
        low, high = wilson_interval(solved, len(scores))
        overall = 100 * solved / len(scores)
        return round(overall, 2), ScoreInterval(low=round(100 * low, 2), high=round(100 * high, 2),
                                                method="wilson")
    interval = bootstrap_ci(scores_by_cluster(scored), seed=seed)
    return round(interval.estimate, 2), ScoreInterval(
        low=round(interval.low, 2), high=round(interval.high, 2), method="bootstrap-clustered"
    )


def run_detectable_difference(items: Sequence[ItemResult]) -> DetectableDifference | None:
    """The smallest difference the run could detect (80 % power, alpha 0.05): between two of
    its models on their shared requirements when it ran several (paired), else against a
    model of its own spread on the same requirements. None with fewer than two
    requirements, or when no spread was seen (which says nothing of the next model's)."""
    by_model = scores_by_model(items)
    if len(by_model) >= 2:
        return _paired_detectable_difference(list(by_model.values()))
    clusters = scores_by_cluster(items)
    sd = like_model_sd(clusters)
    if not sd:
        return None
    return DetectableDifference(points=round(detectable_difference(sd, len(clusters)), 2),
                                requirements=len(clusters), sd=round(sd, 2), basis="like-model")


def _paired_detectable_difference(models: list[dict[str, list[float]]]
                                  ) -> DetectableDifference | None:
    """Over every pair of models, the root mean square of their per-requirement differences'
    standard deviations, on the fewest requirements a pair shares."""
    pairs = [paired_difference_sd(a, b) for i, a in enumerate(models) for b in models[i + 1:]]
    measured = [pair for pair in pairs if pair is not None]
    if not measured:
        return None
    sd = (sum(spread ** 2 for spread, _ in measured) / len(measured)) ** 0.5
    shared = min(count for _, count in measured)
    if not sd:
        return None
    return DetectableDifference(points=round(detectable_difference(sd, shared), 2),
                                requirements=shared, sd=round(sd, 2), basis="paired")


def scores_by_model(items: Sequence[ItemResult]) -> dict[str, dict[str, list[float]]]:
    """A run of several models' scored items (``ITEM@MODEL``): per model, the scores per
    requirement (:func:`requirement_of`). Empty for a run of one model."""
    scores: dict[str, dict[str, list[float]]] = {}
    for item in items:
        model = model_of(item)
        if model is None or item.score is None:
            continue
        scores.setdefault(model, {}).setdefault(requirement_of(item), []).append(float(item.score))
    return scores


def scores_by_cluster(items: Sequence[ItemResult]) -> dict[str, list[float]]:
    """The scored items' scores per requirement (:func:`requirement_of`)."""
    clusters: dict[str, list[float]] = {}
    for item in items:
        if item.score is not None:
            clusters.setdefault(requirement_of(item), []).append(float(item.score))
    return clusters


def requirement_of(item: ItemResult) -> str:
    """The requirement ``item`` measures (its bootstrap cluster; an item without one is its
    own), the same for every model of a run of several: results of schema 5 kept the answering
    model in a static item's cluster (``humaneval/HumanEval_0@MODEL``), which is left out."""
    cluster = item.cluster or item.item_id
    model = model_of(item)
    return cluster.removesuffix(f"@{model}") if model is not None else cluster


def model_of(item: ItemResult) -> str | None:
    """The model that answered ``item`` in a run of several models (its id's ``@MODEL``);
    None in a run of one model."""
    parsed = ItemId.try_parse(item.item_id)
    return None if parsed is None else parsed.model


def scores_by_requirement(items: Sequence[ItemResult]) -> dict[str, float]:
    """Mean score per requirement (cluster) over scored items, for paired baseline comparison."""
    return {key: sum(values) / len(values) for key, values in scores_by_cluster(items).items()}


def _outcome(item: ItemResult) -> ProblemOutcome:
    return ProblemOutcome(
        status=item.status,
        pass_ratio=item.pass_ratio,
        output_tokens=item.usage.completion_tokens,
        judge_time_s=item.judge_time_s,
    )

