"""Krippendorff's α with the interval metric: how reliably judges agree across items.

For the interval metric the coincidence matrix is not needed: with ``n`` the
number of pairable values (values in units holding at least two),

    D_o = 1/n · Σ_u 1/(m_u - 1) · Σ_{i≠j in u} (v_i - v_j)²
    D_e = 1/(n(n - 1)) · Σ_{i≠j} (v_i - v_j)²     over all pairable values
    α   = 1 - D_o / D_e

and a sum of squared differences over ordered pairs of ``m`` values is
``2·m²·var`` (population variance), which numpy computes per unit at once.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from numbers import Real

import numpy as np

from ..models import DIMENSIONS, validated_judge_scores

# Pairable values spread less than this, relative to their magnitude, do not vary.
_NO_VARIATION = 1e-12


def _ratings_matrix(ratings: Sequence[Sequence[float | None]]) -> np.ndarray:
    rows = list(ratings)
    widths = {len(row) for row in rows}
    if len(widths) > 1:
        raise ValueError(f"every coder must rate the same units; got row lengths {sorted(widths)}")
    matrix = np.full((len(rows), widths.pop() if widths else 0), np.nan)
    for c, row in enumerate(rows):
        for u, value in enumerate(row):
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, Real):
                raise ValueError(f"rating of coder {c}, unit {u} must be a number, got {value!r}")
            if not math.isfinite(float(value)):
                raise ValueError(f"rating of coder {c}, unit {u} must be finite, got {value!r}")
            matrix[c, u] = float(value)
    return matrix


def krippendorff_alpha_interval(ratings: Sequence[Sequence[float | None]]) -> float | None:
    """Krippendorff's α (interval metric); rows are coders, columns units, ``None`` missing.

    Units with fewer than two ratings are not pairable and are ignored. The result
    is ``None`` when α is undefined: no unit holds two ratings, or the pairable
    values do not vary at all (expected disagreement 0, so the data say nothing
    about reliability). α is 1 for perfect agreement, about 0 for chance, and
    negative for systematic disagreement.
    """
    matrix = _ratings_matrix(ratings)
    present = ~np.isnan(matrix)
    per_unit = present.sum(axis=0)
    pairable = per_unit >= 2
    if not pairable.any():
        return None
    values = np.where(present, matrix, 0.0)[:, pairable]
    counts = per_unit[pairable].astype(float)
    n = counts.sum()

    mask = present[:, pairable]
    # Centre on the pooled mean: α is shift-invariant and the sums of squares stay accurate.
    centre = values.sum() / n
    centred = np.where(mask, values - centre, 0.0)
    unit_sum = centred.sum(axis=0)
    unit_sum_sq = (centred**2).sum(axis=0)
    within = 2.0 * (counts * unit_sum_sq - unit_sum**2)
    observed = float((within / (counts - 1.0)).sum() / n)
    total = 2.0 * (n * unit_sum_sq.sum() - unit_sum.sum() ** 2)
    expected = float(total / (n * (n - 1.0)))

    magnitude = max(1.0, float(np.abs(values[mask]).max()))
    if float(np.abs(centred[mask]).max()) <= _NO_VARIATION * magnitude:
        return None
    return 1.0 - observed / expected


def dimension_alphas(
    items: Sequence[Mapping[str, Mapping[str, float]]],
) -> dict[str, float | None]:
    """Krippendorff's α (interval) per dimension across judges, over a run's items.

    Each item maps a judge's name to that judge's five scores; a judge absent
    from an item (dropped, failed) is a missing rating. Scores are validated and
    clamped to 0-100 as ``score_panel`` does.
    """
    judges = sorted({judge for item in items for judge in item})
    table = [
        {
            judge: validated_judge_scores(scores, f"judge {judge!r} scores")
            for judge, scores in item.items()
        }
        for item in items
    ]
    return {
        d: krippendorff_alpha_interval(
            [[item[judge][d] if judge in item else None for item in table] for judge in judges]
        )
        for d in DIMENSIONS
    }
