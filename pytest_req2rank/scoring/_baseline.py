"""Baseline against candidate on the same requirements: paired difference and regressions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from ._intervals import check_bootstrap_parameters, cluster_bootstrap, finite_number


class PairedDiff(NamedTuple):
    """Mean of ``candidate - baseline`` over shared requirements, its CI, and how many pairs."""

    mean_diff: float
    low: float
    high: float
    n_pairs: int


class Regression(NamedTuple):
    """One requirement whose score dropped from baseline to candidate."""

    requirement: str
    baseline: float
    candidate: float
    diff: float


def _pairs(
    baseline: Mapping[str, float], candidate: Mapping[str, float]
) -> list[tuple[str, float, float]]:
    return [
        (
            key,
            finite_number(baseline[key], f"baseline score of {key!r}"),
            finite_number(candidate[key], f"candidate score of {key!r}"),
        )
        for key in sorted(set(baseline) & set(candidate))
    ]


def paired_bootstrap_diff(
    baseline: Mapping[str, float],
    candidate: Mapping[str, float],
    *,
    seed: int,
    n_resamples: int = 2000,
    level: float = 0.95,
) -> PairedDiff:
    """Mean per-requirement difference (candidate - baseline) with a paired bootstrap CI.

    Only requirements scored in both runs count; the others are ignored (compare
    ``n_pairs`` with the runs' sizes). A negative difference is a drop. Raises
    ``ValueError`` when the runs share no requirement.
    """
    check_bootstrap_parameters(n_resamples, level)
    pairs = _pairs(baseline, candidate)
    if not pairs:
        raise ValueError(
            f"baseline ({len(baseline)} requirements) and candidate ({len(candidate)}) "
            "share no requirement: nothing to compare (was the baseline run with the same seed?)"
        )
    diffs = np.array([new - old for _, old, new in pairs])
    low, high = cluster_bootstrap(
        diffs, np.ones_like(diffs), seed=seed, n_resamples=n_resamples, level=level
    )
    return PairedDiff(float(diffs.mean()), low, high, len(pairs))


def regressions(
    baseline: Mapping[str, float], candidate: Mapping[str, float], top: int = 5
) -> list[Regression]:
    """The ``top`` requirements with the largest drops, largest first (ties by name).

    Only requirements scored in both runs and scoring lower in ``candidate`` are listed.
    """
    if top < 0:
        raise ValueError(f"top must not be negative, got {top}")
    drops = [
        Regression(key, old, new, new - old)
        for key, old, new in _pairs(baseline, candidate)
        if new < old
    ]
    drops.sort(key=lambda r: (r.diff, r.requirement))
    return drops[:top]
