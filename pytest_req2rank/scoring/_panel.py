"""One item's judge panel aggregated into a score: agreement, trimming, weighting, CI95.

The rules are those docs/judges-and-scoring.md states, with the semantics of the
original Req-2-Rank implementation where that page is silent:

- Agreement is decided on the panel's σ (mean of the five per-dimension
  population standard deviations); the per-dimension σ only drives warnings,
  so a dimension can warn while the panel as a whole agrees well enough to trim.
- Trimming drops exactly one highest and one lowest score per dimension (ties
  included: of 80, 80, 80, 90 the kept scores are 80, 80). For the CI the
  judges themselves are trimmed: each judge's own weighted overall score is
  computed from their unrounded scores and the judges with the lowest and the
  highest overall are dropped. With exactly three judges this leaves one judge,
  so the interval has no margin.
- Rounding is half-up to one decimal (after discarding float noise below 1e-9),
  so 78.25 is 78.3, as the reference implementation's ``Math.round`` gives.
- CI bounds are rounded like the scores and clamped to 0-100.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

import numpy as np

from ..models import DIMENSIONS, SCORE_MAX, SCORE_MIN, dimension_weights, validated_judge_scores

Agreement = Literal["high", "moderate", "low"]

HIGH_AGREEMENT_MAX_SIGMA = 8.0
MODERATE_AGREEMENT_MAX_SIGMA = 15.0
Z_95 = 1.96
MIN_JUDGES_TO_TRIM = 3


@dataclass(frozen=True)
class PanelScore:
    """A judge panel's verdict on one item.

    ``dimensions`` and ``sigmas`` map each dimension to its (trimmed) mean score
    and to the judges' population standard deviation on it; ``sigma`` is the
    panel's σ, the mean of ``sigmas``, which decides ``agreement``.
    """

    overall: float
    dimensions: dict[str, float]
    ci95: tuple[float, float]
    agreement: Agreement
    sigma: float
    trimmed: bool
    warnings: tuple[str, ...]
    sigmas: dict[str, float]
    n_judges: int


def round_half_up(value: float, digits: int = 1) -> float:
    """``value`` rounded half-up to ``digits`` decimals, ignoring float noise below 1e-9."""
    exponent = Decimal(1).scaleb(-digits)
    return float(Decimal(repr(round(value, 9))).quantize(exponent, rounding=ROUND_HALF_UP))


def agreement_band(sigma: float) -> Agreement:
    """The agreement band of a σ: high up to 8, moderate up to 15, low above (float noise ignored)."""
    sigma = round(sigma, 9)
    if sigma <= HIGH_AGREEMENT_MAX_SIGMA:
        return "high"
    if sigma <= MODERATE_AGREEMENT_MAX_SIGMA:
        return "moderate"
    return "low"


def _trim(values: np.ndarray) -> np.ndarray:
    """Drop the lowest and the highest value along the first axis (per column)."""
    return np.sort(values, axis=0)[1:-1]


def score_panel(
    judge_scores: Sequence[Mapping[str, float]],
    weights: Mapping[str, float] | None = None,
    *,
    trim: bool | None = None,
) -> PanelScore:
    """Aggregate one item's judge scores (one mapping per judge) into a ``PanelScore``.

    Each mapping holds exactly the five dimensions (functionality, quality,
    logic, security, engineering) scored 0-100; scores outside that range are
    clamped to it, as the judge-answer parser does. ``weights`` are fractions
    summing to 1 (default 30/25/25/10/10 %). ``trim`` overrides the trimming
    decision (as when scores derived from a panel must be trimmed as the panel
    was); trimming needs at least three judges. Raises ``ValueError`` on an
    empty panel, a missing, unknown or non-numeric score, invalid weights, or
    ``trim=True`` with fewer than three judges.
    """
    if isinstance(judge_scores, (str, bytes, Mapping)) or not isinstance(judge_scores, Sequence):
        raise ValueError("judge scores must be a sequence with one mapping per judge")
    if not judge_scores:
        raise ValueError("the panel is empty: at least one judge's scores are needed")
    weight = dimension_weights(weights)
    rows = [validated_judge_scores(s, f"judge {i} scores") for i, s in enumerate(judge_scores)]
    scores = np.array([[row[d] for d in DIMENSIONS] for row in rows], dtype=float)
    weight_vector = np.array([weight[d] for d in DIMENSIONS], dtype=float)
    n_judges = len(rows)

    sigmas = scores.std(axis=0)
    sigma = float(sigmas.mean())
    agreement = agreement_band(sigma)
    if trim and n_judges < MIN_JUDGES_TO_TRIM:
        raise ValueError(f"trimming needs at least {MIN_JUDGES_TO_TRIM} judges, got {n_judges}")
    trimmed = (n_judges >= MIN_JUDGES_TO_TRIM and agreement != "low") if trim is None else trim

    kept = _trim(scores) if trimmed else scores
    dimensions = {d: round_half_up(float(mean)) for d, mean in zip(DIMENSIONS, kept.mean(axis=0))}
    overall = round_half_up(math.fsum(dimensions[d] * weight[d] for d in DIMENSIONS))

    judge_overall = scores @ weight_vector
    ci_scores = _trim(judge_overall) if trimmed else judge_overall
    margin = 0.0
    if ci_scores.size > 1:
        margin = Z_95 * float(ci_scores.std()) / math.sqrt(ci_scores.size)
    ci95 = (
        max(SCORE_MIN, round_half_up(overall - margin)),
        min(SCORE_MAX, round_half_up(overall + margin)),
    )

    warnings = tuple(
        f"low judge agreement on {d} (sigma {round_half_up(float(s)):.1f} > "
        f"{MODERATE_AGREEMENT_MAX_SIGMA:g})"
        for d, s in zip(DIMENSIONS, sigmas)
        if agreement_band(float(s)) == "low"
    )
    return PanelScore(
        overall=overall,
        dimensions=dimensions,
        ci95=ci95,
        agreement=agreement,
        sigma=sigma,
        trimmed=trimmed,
        warnings=warnings,
        sigmas={d: float(s) for d, s in zip(DIMENSIONS, sigmas)},
        n_judges=n_judges,
    )
