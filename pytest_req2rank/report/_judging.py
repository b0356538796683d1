"""The judge panel over a run: dimension scores, agreement, Krippendorff's α, each judge's record."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from statistics import fmean

from ..models import DIMENSIONS, ItemResult, JudgeVerdict, Usage
from ..scoring import MODERATE_AGREEMENT_MAX_SIGMA, dimension_alphas, round_half_up, score_panel
from ._document import JudgeReport, JudgingSummary, ScoreInterval, Totals

INVALID_ANSWER = "invalid answer"
"""How a verdict dropped for its answer (not for the provider) starts its error."""


def judging_summary(items: Sequence[ItemResult]) -> tuple[JudgingSummary | None, list[str]]:
    """The panel's run-level summary and its warnings; ``(None, [])`` when nothing was judged."""
    judged = [item for item in items if item.panel is not None]
    if not judged:
        return None, []
    scored = [item for item in judged if item.panel and item.panel.status == "scored"]
    panels = [item.panel for item in scored if item.panel is not None]
    multi = [p for p in panels if p.n_judges >= 2 and p.sigma is not None]
    per_judge = _per_judge(judged)
    intervals = [p.ci95 for p in multi if p.ci95 is not None]
    summary = JudgingSummary(
        judges=[report.judge for report in per_judge],
        items_judged=len(scored),
        judge_failed=len(judged) - len(scored),
        execution_weight=judged[0].panel.execution_weight if judged[0].panel else 0.0,
        judge_dimensions=_mean_dimensions([p.judge_dimensions for p in panels]),
        sigma=round_half_up(fmean(p.sigma for p in multi if p.sigma is not None), 2) if multi else None,
        agreement_counts=dict(Counter(p.agreement for p in multi if p.agreement)),
        alpha=_alphas(scored),
        mean_item_ci95=ScoreInterval(
            low=round_half_up(fmean(low for low, _ in intervals), 2),
            high=round_half_up(fmean(high for _, high in intervals), 2),
            method="panel-mean",
        ) if intervals else None,
        per_judge=per_judge,
    )
    return summary, _warnings(summary, scored)


def dimension_scores(items: Sequence[ItemResult]) -> dict[str, float]:
    """The run's score per dimension: the mean over scored items of the blended dimensions."""
    return _mean_dimensions(
        [item.panel.dimensions for item in items if item.panel and item.panel.status == "scored"]
    )


def judge_usage(items: Sequence[ItemResult]) -> Usage:
    """The calls every judge made, over the run."""
    return sum((verdict.usage for item in items for verdict in item.judges), Usage())


def _mean_dimensions(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {}
    return {d: round_half_up(fmean(row[d] for row in rows)) for d in DIMENSIONS if all(d in r for r in rows)}


def _alphas(items: Sequence[ItemResult]) -> dict[str, float | None]:
    table = [
        {v.judge: v.scores for v in item.judges if v.scores is not None} for item in items
    ]
    if len({judge for row in table for judge in row}) < 2:
        return {d: None for d in DIMENSIONS}
    return {
        d: None if alpha is None else round_half_up(alpha, 3)
        for d, alpha in dimension_alphas(table).items()
    }


def _per_judge(items: Sequence[ItemResult]) -> list[JudgeReport]:
    verdicts: dict[str, list[JudgeVerdict]] = {}
    for item in items:
        for verdict in item.judges:
            verdicts.setdefault(verdict.judge, []).append(verdict)
    reports = []
    for judge, given in verdicts.items():
        valid = [v for v in given if v.valid]
        invalid = sum(1 for v in given if v.error and v.error.startswith(INVALID_ANSWER))
        usage = sum((v.usage for v in given), Usage())
        answered = len(valid) + invalid
        reports.append(JudgeReport(
            judge=judge,
            items=len(given),
            scored=len(valid),
            invalid_answers=invalid,
            invalid_answer_rate=round(invalid / answered, 4) if answered else None,
            failures=len(given) - len(valid) - invalid,
            mean_overall=round_half_up(fmean(v.overall for v in valid if v.overall is not None), 2)
            if valid else None,
            mean_latency_s=round(fmean(v.latency_s for v in given), 4),
            self_judging=any(v.self_judging for v in given),
            usage=totals_of(usage),
        ))
    return reports


def _warnings(summary: JudgingSummary, scored: Sequence[ItemResult]) -> list[str]:
    warnings = [
        f"judge {r.judge} is of the target's model family and judged {r.scored} items; "
        "--r2r-exclude-self-judging leaves it out"
        for r in summary.per_judge if r.self_judging and r.scored
    ]
    warnings += [
        f"judge {r.judge} was dropped on {r.items - r.scored} of {r.items} items "
        f"({r.invalid_answers} invalid answers, {r.failures} provider failures)"
        for r in summary.per_judge if r.scored < r.items
    ]
    if summary.judge_failed:
        warnings.append(
            f"{summary.judge_failed} items are judge_failed (every judge failed) and are "
            "excluded from the score"
        )
    low = _low_agreement_counts(scored)
    if low:
        warnings.append(
            f"judges disagreed strongly (sigma > {MODERATE_AGREEMENT_MAX_SIGMA:g}) on "
            + ", ".join(f"{d} in {n} of {len(scored)} items" for d, n in low.items())
        )
    return warnings


def _low_agreement_counts(items: Sequence[ItemResult]) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for item in items:
        rows = [v.scores for v in item.judges if v.scores is not None]
        if len(rows) >= 2:
            sigmas = score_panel(rows).sigmas
            counts.update(d for d in DIMENSIONS if sigmas[d] > MODERATE_AGREEMENT_MAX_SIGMA)
    return {d: counts[d] for d in DIMENSIONS if counts[d]}


def totals_of(usage: Usage) -> Totals:
    """A usage as the summary's totals."""
    return Totals(calls=usage.calls, prompt_tokens=usage.prompt_tokens,
                  completion_tokens=usage.completion_tokens,
                  reasoning_tokens=usage.reasoning_tokens, cost_usd=usage.cost_usd)
