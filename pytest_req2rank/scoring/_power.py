"""Power: the smallest difference a run can detect, and the requirements a difference needs.

Two models answering the same n requirements differ by the mean of their per-requirement
differences, whose standard error is ``sd / sqrt(n)`` (``sd``: the standard deviation of the
per-requirement differences). A two-sided test at level ``alpha`` detects a true difference
D with probability ``power`` when ``D = (z(1 - alpha/2) + z(power)) * sd / sqrt(n)`` (the
normal approximation; Miller, "Adding Error Bars to Evals", 2024). Solving for n gives the
requirements (rounds) D needs.

From one model's run the other model's scores are unknown: :func:`like_model_sd` takes a
second model with the same per-requirement spread and no correlation between them
(``sd = sqrt(2) * s``). Models that find the same requirements hard are correlated, which
narrows the paired difference, so this is the conservative figure; with several models on
the same requirements :func:`paired_difference_sd` measures it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist

import numpy as np

from ._intervals import finite_number

ALPHA = 0.05
POWER = 0.8


def _z_sum(alpha: float, power: float) -> float:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha!r}")
    if not 0.0 < power < 1.0:
        raise ValueError(f"power must lie strictly between 0 and 1, got {power!r}")
    normal = NormalDist()
    return normal.inv_cdf(1.0 - alpha / 2.0) + normal.inv_cdf(power)


def detectable_difference(sd: float, n: int, *, alpha: float = ALPHA,
                          power: float = POWER) -> float:
    """The smallest true difference that ``n`` paired requirements detect with ``power`` at
    level ``alpha``, when per-requirement differences have standard deviation ``sd``."""
    if n < 1:
        raise ValueError(f"n must be at least 1 requirement, got {n}")
    if finite_number(sd, "sd") < 0:
        raise ValueError(f"sd must not be negative, got {sd!r}")
    return _z_sum(alpha, power) * sd / math.sqrt(n)


def rounds_needed(difference: float, sd: float, *, alpha: float = ALPHA,
                  power: float = POWER) -> int:
    """The requirements a run needs to detect ``difference`` (at least 2: one gives no
    spread) when per-requirement differences have standard deviation ``sd``."""
    if finite_number(difference, "difference") <= 0:
        raise ValueError(f"difference must be positive, got {difference!r}")
    if finite_number(sd, "sd") < 0:
        raise ValueError(f"sd must not be negative, got {sd!r}")
    return max(2, math.ceil((_z_sum(alpha, power) * sd / difference) ** 2))


def _requirement_means(values_by_cluster: Mapping[str, Sequence[float]]) -> dict[str, float]:
    means = {}
    for key, values in values_by_cluster.items():
        finite = [finite_number(v, f"score of {key!r}") for v in values]
        if finite:
            means[key] = math.fsum(finite) / len(finite)
    return means


def like_model_sd(values_by_cluster: Mapping[str, Sequence[float]]) -> float | None:
    """The standard deviation of per-requirement differences between this model and another
    of the same spread, uncorrelated with it: ``sqrt(2)`` x the standard deviation of this
    model's per-requirement mean scores; None with fewer than two requirements."""
    means = list(_requirement_means(values_by_cluster).values())
    if len(means) < 2:
        return None
    return math.sqrt(2.0) * float(np.std(means, ddof=1))


def paired_difference_sd(a: Mapping[str, Sequence[float]], b: Mapping[str, Sequence[float]]
                         ) -> tuple[float, int] | None:
    """The standard deviation of the per-requirement differences of two models on the
    requirements both scored, and how many; None when they share fewer than two."""
    mean_a, mean_b = _requirement_means(a), _requirement_means(b)
    shared = sorted(mean_a.keys() & mean_b.keys())
    if len(shared) < 2:
        return None
    diffs = [mean_a[key] - mean_b[key] for key in shared]
    return float(np.std(diffs, ddof=1)), len(shared)
