"""Ranking several models from their per-item scores, with the uncertainty of the ranking.

Each model's scores are grouped by requirement (a cluster: its rounds or samples). Every
statistic comes from one bootstrap over requirements, the run CI's own (:mod:`._bootstrap`):

- **paired** (the models answered the same requirements): each resample draws the same
  requirements for every model, so what the models share (an easy or a hard draw) cancels in
  their differences. The score CI of a model that scored every requirement is then exactly
  :func:`~._bootstrap.bootstrap_ci`'s with the same seed.
- **unpaired** (different requirements, e.g. runs with different seeds): each model's
  requirements are resampled on their own, and differences are as wide as both CIs together.

From the resampled means: each model's score CI95; its difference to the leader (the best
point score) with its CI95; its 95 % rank interval (the model's rank in each resample,
1 + the models scoring strictly more, and the central 95 % of those ranks, widened to hold
the observed rank); and groups: consecutive models (in score order) stay in one group
unless the data separate every model above the boundary from every model below it (the
difference's CI95 excludes 0), so any two models in different groups are separated and
ties are shown as ties.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ._intervals import (
    Interval,
    check_bootstrap_parameters,
    finite_number,
    percentile_interval,
    resample_picks,
)


@dataclass(frozen=True)
class RankedModel:
    """One row of a ranking table."""

    model: str
    score: Interval
    """The mean item score and its CI."""
    requirements: int
    """Requirements (clusters) with a score."""
    diff_to_leader: Interval
    """This model's score minus the leader's, with its CI (zeros for the leader)."""
    rank: int
    """1 + the models with a higher point score (tied models share a rank)."""
    rank_low: int
    rank_high: int
    """The rank interval: the ranks this model takes in the central resamples."""
    group: int
    """1-based; the data separate every model of a group from every model of another."""


@dataclass(frozen=True)
class Ranking:
    """Models best first, and how the table was computed."""

    models: tuple[RankedModel, ...]
    paired: bool
    level: float
    n_resamples: int

    @property
    def groups(self) -> list[list[str]]:
        """The models of each group, best group first."""
        found: dict[int, list[str]] = {}
        for row in self.models:
            found.setdefault(row.group, []).append(row.model)
        return [found[g] for g in sorted(found)]


def _clusters(model: str, values_by_cluster: Mapping[str, Sequence[float]]
              ) -> dict[str, tuple[float, int]]:
    if not values_by_cluster:
        raise ValueError(f"model {model!r} has no scored requirement")
    found: dict[str, tuple[float, int]] = {}
    for key in sorted(values_by_cluster):
        values = [finite_number(v, f"score of {model!r} on {key!r}")
                  for v in values_by_cluster[key]]
        if not values:
            raise ValueError(f"model {model!r}: requirement {key!r} has no scores")
        found[key] = (math.fsum(values), len(values))
    return found


def _resampled_means(clusters: list[dict[str, tuple[float, int]]], estimates: np.ndarray, *,
                     paired: bool, seed: int, n_resamples: int) -> np.ndarray:
    """``n_resamples`` x models: each model's mean score in each resample."""
    means = np.empty((n_resamples, len(clusters)))
    if paired:
        keys = sorted(set().union(*clusters))
        picks = resample_picks(seed, len(keys), n_resamples)
        for column, model in enumerate(clusters):
            sums = np.array([model.get(key, (0.0, 0))[0] for key in keys])
            sizes = np.array([model.get(key, (0.0, 0))[1] for key in keys], dtype=float)
            total, size = sums[picks].sum(axis=1), sizes[picks].sum(axis=1)
            # A resample that drew none of a model's requirements (it missed some) keeps its
            # point estimate.
            means[:, column] = np.divide(total, size, out=np.full(n_resamples, estimates[column]),
                                         where=size > 0)
        return means
    for column, model in enumerate(clusters):
        sums = np.array([total for total, _ in model.values()])
        sizes = np.array([size for _, size in model.values()], dtype=float)
        own_seed = int(np.random.SeedSequence([seed, column]).generate_state(1)[0])
        picks = resample_picks(own_seed, sums.size, n_resamples)
        means[:, column] = sums[picks].sum(axis=1) / sizes[picks].sum(axis=1)
    return means


def _ranks(means: np.ndarray) -> np.ndarray:
    """Per row, each column's rank: 1 + the columns strictly greater."""
    ranks: np.ndarray = 1 + (means[:, None, :] > means[:, :, None]).sum(axis=2)
    return ranks


def _separated(means: np.ndarray, order: list[int], level: float) -> np.ndarray:
    """``[i, j]`` for ``i`` before ``j`` in ``order``: the data separate the ``i``-th model
    from the ``j``-th (the lower bound of the CI of their difference is above 0)."""
    tail = (1.0 - level) / 2.0
    ordered = means[:, order]
    separated = np.zeros((len(order), len(order)), dtype=bool)
    for position in range(len(order) - 1):
        # One quantile per model against all below it, column by column.
        lows = np.quantile(ordered[:, [position]] - ordered[:, position + 1:], [tail], axis=0)[0]
        separated[position, position + 1:] = lows > 0
    return separated


def rank_models(
    scores: Mapping[str, Mapping[str, Sequence[float]]],
    *,
    paired: bool,
    seed: int,
    n_resamples: int = 2000,
    level: float = 0.95,
) -> Ranking:
    """The ranking table of ``scores`` (model -> requirement -> its item scores).

    ``paired``: the models answered the same requirements (a requirement one model lacks is
    left out of its means only). Reproducible for the same data and ``seed``. Raises
    ``ValueError`` on no model, a model without scores or a non-finite score.
    """
    check_bootstrap_parameters(n_resamples, level)
    if not scores:
        raise ValueError("no models to rank")
    names = sorted(scores)
    clusters = [_clusters(name, scores[name]) for name in names]
    estimates = np.array([math.fsum(s for s, _ in c.values()) / sum(n for _, n in c.values())
                          for c in clusters])
    means = _resampled_means(clusters, estimates, paired=paired, seed=seed,
                             n_resamples=n_resamples)
    order = sorted(range(len(names)), key=lambda i: (-estimates[i], names[i]))
    ranks = _ranks(means)
    tail = (1.0 - level) / 2.0
    leader = order[0]
    separated = _separated(means, order, level)
    boundaries = [bool(separated[:position, position:].all())
                  for position in range(1, len(order))]
    rows = []
    group = 1
    for position, column in enumerate(order):
        if position and boundaries[position - 1]:
            group += 1
        rank = 1 + int((estimates > estimates[column]).sum())
        low = int(np.quantile(ranks[:, column], tail, method="lower"))
        high = int(np.quantile(ranks[:, column], 1.0 - tail, method="higher"))
        diff = (Interval(0.0, 0.0, 0.0) if column == leader else Interval(
            float(estimates[column] - estimates[leader]),
            *percentile_interval(means[:, column] - means[:, leader], level)))
        rows.append(RankedModel(
            model=names[column],
            score=Interval(float(estimates[column]),
                           *percentile_interval(means[:, column], level)),
            requirements=len(clusters[column]),
            diff_to_leader=diff, rank=rank, rank_low=min(low, rank), rank_high=max(high, rank),
            group=group,
        ))
    return Ranking(models=tuple(rows), paired=paired, level=level, n_resamples=n_resamples)
