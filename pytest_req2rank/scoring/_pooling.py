"""Pooling the scores of several runs of one model into one estimate with its CI95.

Each run is an independent sample of requirements (a submitted run's seed is drawn from the
hub's nonce) with its own CI95 (a bootstrap clustered by requirement, or Wilson's interval),
which gives its standard error. The pool is DerSimonian and Laird's random-effects estimate:
runs weighted by the inverse of their variance plus the variance between runs, so larger,
steadier runs weigh more, and runs that differ more than their own intervals say (suites or
complexities mixed, a hosted model changing between runs) widen the interval instead of
narrowing it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ._bootstrap import Interval, finite_number
from ._intervals import Z95

MIN_SE = 0.5
"""The least standard error a run is given (score points): an interval of zero width (every
item scored the same) says no spread was seen, not that the run is exact."""


def pooled_interval(runs: Sequence[Interval], *, min_se: float = MIN_SE) -> Interval:
    """The random-effects pool of ``runs`` (each an estimate with its CI95) and its CI95; one
    run's pool is that run (its own interval, which need not be symmetric)."""
    if not runs:
        raise ValueError("pooling needs at least one run")
    if len(runs) == 1:
        return Interval(*(finite_number(value, "a run's estimate and CI") for value in runs[0]))
    estimates = [finite_number(run.estimate, "a run's estimate") for run in runs]
    variances = [max((finite_number(run.high, "a run's CI high")
                      - finite_number(run.low, "a run's CI low")) / (2 * Z95), min_se) ** 2
                 for run in runs]
    weights = [1.0 / variance for variance in variances]
    total = math.fsum(weights)
    fixed = math.fsum(w * x for w, x in zip(weights, estimates, strict=True)) / total
    q = math.fsum(w * (x - fixed) ** 2 for w, x in zip(weights, estimates, strict=True))
    spread = total - math.fsum(w * w for w in weights) / total
    between = max(0.0, (q - (len(runs) - 1)) / spread) if spread > 0 else 0.0
    pooled = [1.0 / (variance + between) for variance in variances]
    estimate = math.fsum(w * x for w, x in zip(pooled, estimates, strict=True)) / math.fsum(pooled)
    half = Z95 * math.sqrt(1.0 / math.fsum(pooled))
    return Interval(estimate, estimate - half, estimate + half)
