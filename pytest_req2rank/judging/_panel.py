"""The panel: its judges made from their model strings, and one item judged by it (judges run
concurrently, verdicts aggregated, execution blended in, the result scored).

Agreement, σ, trimming and warnings come from the judges' own scores
(:func:`pytest_req2rank.scoring.score_panel`). Then functionality and logic
are anchored in execution: per judge, ``w · 100 · ratio + (1 − w) · score``
with ``w`` the execution weight and ``ratio`` the priority-weighted pass ratio
(judges alone when no test applied); the overall score and its CI95 come
from these blended scores, trimmed exactly as the judges' panel was.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from ..models import (
    INFRA_STATUSES,
    STATIC_JUDGE,
    ItemResult,
    JudgeVerdict,
    PanelResult,
    ProjectRequirement,
    dimension_weights,
)
from ..providers import Provider, resolve_provider
from ..scoring import round_half_up, score_panel
from ._case import Judge, JudgeCase, weighted_overall
from ._family import same_family
from ._llm import LLMJudge
from ._static import StaticJudge

EXECUTION_DIMENSIONS = ("functionality", "logic")
"""The dimensions anchored in the hidden tests' pass ratio."""
SIGMA_DIGITS = 2


def build_judges(
    models: Sequence[str],
    *,
    provider: Callable[[str], Provider] = resolve_provider,
    seed: int | None = None,
    timeout_s: float = 120.0,
    max_tokens: int = 2048,
    weights: Mapping[str, float] | None = None,
) -> list[Judge]:
    """One judge per model string: :class:`StaticJudge` for ``r2r/static``, else an
    :class:`LLMJudge` over ``provider(model)`` (e.g. a factory that adds the response cache)."""
    return [
        StaticJudge()
        if model == STATIC_JUDGE
        else LLMJudge(
            provider(model), seed=seed, timeout_s=timeout_s, max_tokens=max_tokens, weights=weights
        )
        for model in models
    ]


@dataclass(frozen=True)
class PanelConfig:
    """How verdicts become a score: dimension weights (fractions; default 30/25/25/10/10 %), the
    execution weight of the functionality/logic blend (0-1), and whether judges of the target's
    model family are left out."""

    weights: Mapping[str, float] | None = None
    execution_weight: float = 0.7
    exclude_self_judging: bool = False

    def __post_init__(self) -> None:
        dimension_weights(self.weights)
        weight = self.execution_weight
        if isinstance(weight, bool) or not isinstance(weight, int | float) or not 0 <= weight <= 1:
            raise ValueError(f"the execution weight must be a number from 0 to 1, got {weight!r}")


def judge_item(
    case: JudgeCase, judges: Sequence[Judge], config: PanelConfig
) -> tuple[list[JudgeVerdict], PanelResult]:
    """Every judge's verdict on ``case`` (dropped ones included, in panel order) and the result.

    Judges run at the same time, each on its own thread, and never see each
    other's answers. A judge of the target's model family is flagged; with
    ``exclude_self_judging`` it does not run, unless no other judge is left.
    """
    if not judges:
        raise ValueError("the panel has no judge; name at least one, e.g. r2r/static")
    flagged = [(judge, same_family(case.target_model, judge.name)) for judge in judges]
    if config.exclude_self_judging and not all(flag for _, flag in flagged):
        flagged = [(judge, flag) for judge, flag in flagged if not flag]
    with ThreadPoolExecutor(max_workers=len(flagged), thread_name_prefix="r2r-judge") as pool:
        futures = [pool.submit(_verdict, judge, case) for judge, _ in flagged]
        verdicts = [
            _finished(future.result(), flag, config.weights)
            for future, (_, flag) in zip(futures, flagged, strict=True)
        ]
    return verdicts, aggregate_verdicts(verdicts, case.execution_ratio, config)


def _verdict(judge: Judge, case: JudgeCase) -> JudgeVerdict:
    try:
        return judge.judge(case)
    except Exception as exc:  # noqa: BLE001 - a failing judge must not take the item down
        return JudgeVerdict(judge=judge.name, error=f"internal_error: {type(exc).__name__}: {exc}")


def aggregate_verdicts(
    verdicts: Sequence[JudgeVerdict], execution_ratio: float | None, config: PanelConfig
) -> PanelResult:
    """The panel result of stored verdicts (as :func:`judge_item` computes it, so a resumed run
    can rebuild it without asking any judge again); each valid verdict's ``overall`` is expected
    under ``config.weights``."""
    if execution_ratio is not None and not 0 <= execution_ratio <= 1:
        raise ValueError(f"the execution ratio must be from 0 to 1, got {execution_ratio!r}")
    warnings = [f"judge {v.judge} dropped: {v.error}" for v in verdicts if v.scores is None]
    if config.exclude_self_judging and verdicts and all(v.self_judging for v in verdicts):
        warnings.append(
            "every judge is of the target's model family: kept despite "
            "the exclusion of self-judging"
        )
    rows = [v.scores for v in verdicts if v.scores is not None]
    if not rows:
        return PanelResult(
            status="judge_failed",
            overall=None,
            dimensions={},
            judge_dimensions={},
            ci95=None,
            agreement=None,
            sigma=None,
            n_judges=0,
            warnings=[*warnings, "every judge failed: the item is excluded from the score"],
            execution_ratio=execution_ratio,
            execution_weight=config.execution_weight,
        )
    judges = score_panel(rows, config.weights)
    blended = [blend(row, execution_ratio, config.execution_weight) for row in rows]
    final = score_panel(blended, config.weights, trim=judges.trimmed)
    return PanelResult(
        status="scored",
        overall=final.overall,
        dimensions=final.dimensions,
        judge_dimensions=judges.dimensions,
        ci95=final.ci95,
        agreement=judges.agreement,
        sigma=round_half_up(judges.sigma, SIGMA_DIGITS),
        trimmed=judges.trimmed,
        warnings=[*warnings, *judges.warnings],
        n_judges=len(rows),
        execution_ratio=execution_ratio,
        execution_weight=config.execution_weight,
    )


def blend(
    scores: Mapping[str, float], execution_ratio: float | None, execution_weight: float
) -> dict[str, float]:
    """One judge's scores with functionality and logic anchored in the pass ratio."""
    if execution_ratio is None:
        return dict(scores)
    anchor = 100.0 * execution_ratio
    return {
        d: math.fsum((execution_weight * anchor, (1 - execution_weight) * s))
        if d in EXECUTION_DIMENSIONS
        else s
        for d, s in scores.items()
    }


def _finished(
    verdict: JudgeVerdict, self_judging: bool, weights: Mapping[str, float] | None
) -> JudgeVerdict:
    """``verdict`` flagged, with its overall score under the panel's ``weights``."""
    overall = None if verdict.scores is None else weighted_overall(verdict.scores, weights)
    return verdict.model_copy(update={"self_judging": self_judging, "overall": overall})


def judge_result(
    item: ItemResult,
    judges: Sequence[Judge],
    config: PanelConfig,
    requirement: ProjectRequirement | None = None,
) -> ItemResult:
    """``item`` with every judge's verdict, the panel's result and the panel's score.

    Items the panel cannot judge are returned unchanged: an infrastructure
    failure stays unscored, and an answer without code, or cut by the token limit before
    its code was complete (``truncated``), keeps its score (0). When every judge fails the item is ``judge_failed``: its score is
    ``None`` and it is left out of the run's score.
    """
    if not judges or item.status in (*INFRA_STATUSES, "truncated") or not item.code:
        return item
    verdicts, panel = judge_item(JudgeCase.from_item(item, requirement), judges, config)
    return item.model_copy(update={"judges": verdicts, "panel": panel, "score": panel.overall})
