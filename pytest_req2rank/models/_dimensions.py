"""The five judging dimensions, their default weights, and validation of judge scores."""

from __future__ import annotations

import math
from collections.abc import Mapping
from numbers import Real
from types import MappingProxyType

DIMENSIONS: tuple[str, ...] = ("functionality", "quality", "logic", "security", "engineering")
DEFAULT_WEIGHTS: Mapping[str, float] = MappingProxyType(
    {
        "functionality": 0.30,
        "quality": 0.25,
        "logic": 0.25,
        "security": 0.10,
        "engineering": 0.10,
    }
)
DEFAULT_EXECUTION_WEIGHT = 0.7
"""The execution evidence's share of an item's score when a panel judges it (the judges' 0.3)."""
SCORE_MIN = 0.0
SCORE_MAX = 100.0
WEIGHT_SUM_TOLERANCE = 1e-6


def _number(value: object, what: str) -> float:
    # bool is a Real in Python; a judge answering `true` has not given a score.
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{what} must be a number, got {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{what} must be finite, got {value!r}")
    return number


def _check_keys(mapping: Mapping[str, object], what: str) -> None:
    missing = [d for d in DIMENSIONS if d not in mapping]
    if missing:
        raise ValueError(f"{what} lacks dimension(s) {', '.join(missing)}")
    unknown = sorted(str(k) for k in mapping if k not in DIMENSIONS)
    if unknown:
        raise ValueError(
            f"{what} has unknown dimension(s) {', '.join(unknown)}; "
            f"expected {', '.join(DIMENSIONS)}"
        )


def validated_judge_scores(scores: object, what: str = "judge scores") -> dict[str, float]:
    """One judge's five scores as floats in dimension order, clamped to 0-100.

    Raises ``ValueError`` when ``scores`` is not a mapping of exactly the five
    dimensions to finite numbers.
    """
    if not isinstance(scores, Mapping):
        raise ValueError(f"{what} must be a mapping of dimension to score, got {scores!r}")
    _check_keys(scores, what)
    return {
        d: min(SCORE_MAX, max(SCORE_MIN, _number(scores[d], f"{what}[{d!r}]"))) for d in DIMENSIONS
    }


def dimension_weights(weights: Mapping[str, float] | None) -> dict[str, float]:
    """Validated weights in dimension order; the defaults (30/25/25/10/10 %) when ``None``.

    Weights are fractions: non-negative, summing to 1 within 1e-6.
    """
    if weights is None:
        return dict(DEFAULT_WEIGHTS)
    if not isinstance(weights, Mapping):
        raise ValueError(f"weights must be a mapping of dimension to weight, got {weights!r}")
    _check_keys(weights, "weights")
    checked = {d: _number(weights[d], f"weight {d!r}") for d in DIMENSIONS}
    negative = [d for d, w in checked.items() if w < 0]
    if negative:
        raise ValueError(f"weights must not be negative: {', '.join(negative)}")
    total = math.fsum(checked.values())
    if abs(total - 1.0) > WEIGHT_SUM_TOLERANCE:
        raise ValueError(f"weights must sum to 1, got {total:g}")
    return checked


def parse_weights(text: str) -> dict[str, float]:
    """Weights written as percent, ``functionality=30,quality=25,...``, as validated fractions.

    Every dimension must be named once; the percentages must sum to 100.
    """
    example = ",".join(f"{d}={round(100 * w)}" for d, w in DEFAULT_WEIGHTS.items())
    percent: dict[str, float] = {}
    for part in text.split(","):
        name, sep, number = (piece.strip() for piece in part.partition("="))
        if not sep or not name:
            raise ValueError(f"expected DIMENSION=PERCENT pairs such as {example}, got {part.strip()!r}")
        if name in percent:
            raise ValueError(f"names {name} more than once")
        try:
            percent[name] = float(number)
        except ValueError:
            raise ValueError(f"the weight of {name} must be a number (percent), got {number!r}") from None
    _check_keys(percent, "weights")
    total = math.fsum(percent.values())
    if abs(total - 100.0) > 100 * WEIGHT_SUM_TOLERANCE:
        raise ValueError(f"the weights are percentages and must sum to 100, got {total:g}")
    return dimension_weights({d: percent[d] / 100.0 for d in DIMENSIONS})
