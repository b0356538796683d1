"""Confidence intervals of a run's score: a percentile bootstrap clustered by requirement, and
Wilson's interval for a proportion (a run whose every item is pass or fail).

Rounds of one requirement are not independent (same task, same difficulty), so
the bootstrap resamples whole requirements with replacement, and the statistic
on each resample is the same estimator as the point estimate: the mean over all
scores (every round of every requirement weighs the same). Cluster keys are
sorted before resampling, so the result depends on the seed and the data only,
never on the mappings' insertion order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from numbers import Real
from typing import NamedTuple

import numpy as np


class Interval(NamedTuple):
    """A point estimate and its confidence interval."""

    estimate: float
    low: float
    high: float


def finite_number(value: object, what: str) -> float:
    """``value`` as a float; ``ValueError`` when it is not a finite real number."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(float(value)):
        raise ValueError(f"{what} must be a finite number, got {value!r}")
    return float(value)


def check_bootstrap_parameters(n_resamples: int, level: float) -> None:
    """Raise ``ValueError`` unless ``n_resamples`` >= 1 and 0 < ``level`` < 1."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level!r}")


def cluster_bootstrap(
    sums: np.ndarray, sizes: np.ndarray, *, seed: int, n_resamples: int, level: float
) -> tuple[float, float]:
    """Percentile interval of ``Σ sums / Σ sizes`` with clusters resampled with replacement."""
    picks = resample_picks(seed, sums.size, n_resamples)
    means = sums[picks].sum(axis=1) / sizes[picks].sum(axis=1)
    return percentile_interval(means, level)


def resample_picks(seed: int, n_clusters: int, n_resamples: int) -> np.ndarray:
    """The clusters each resample draws (with replacement): ``n_resamples`` rows of
    ``n_clusters`` indices, the same for the same ``seed``."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_clusters, size=(n_resamples, n_clusters))


def percentile_interval(values: np.ndarray, level: float) -> tuple[float, float]:
    """The central ``level`` percentile interval of ``values`` (along the first axis)."""
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return float(low), float(high)


def bootstrap_ci(
    values_by_cluster: Mapping[str, Sequence[float]],
    *,
    seed: int,
    n_resamples: int = 2000,
    level: float = 0.95,
) -> Interval:
    """Mean of all scores and its bootstrap CI, resampling requirements (clusters).

    ``values_by_cluster`` maps a requirement to its scores (one per round).
    Reproducible: the same data and ``seed`` give the same interval. A single
    requirement gives a zero-width interval (no variation between requirements
    can be observed). Raises ``ValueError`` on no data, an empty cluster or a
    non-finite score.
    """
    check_bootstrap_parameters(n_resamples, level)
    if not values_by_cluster:
        raise ValueError("no scores to bootstrap: values_by_cluster is empty")
    sums: list[float] = []
    sizes: list[int] = []
    for key in sorted(values_by_cluster):
        values = [finite_number(v, f"score of {key!r}") for v in values_by_cluster[key]]
        if not values:
            raise ValueError(f"requirement {key!r} has no scores")
        sums.append(math.fsum(values))
        sizes.append(len(values))
    sum_array = np.array(sums)
    size_array = np.array(sizes, dtype=float)
    estimate = float(sum_array.sum() / size_array.sum())
    low, high = cluster_bootstrap(
        sum_array, size_array, seed=seed, n_resamples=n_resamples, level=level
    )
    return Interval(estimate, low, high)


Z95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion; (0, 1) when ``n`` is 0.

    Unlike the normal approximation it stays inside [0, 1] and is not
    degenerate at 0 % or 100 %.
    """
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be within 0..{n}, got {successes}")
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))
