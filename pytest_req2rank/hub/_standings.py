"""The leaderboard's ranking with its uncertainty: each model's pooled score over its verified
runs' item scores, its CI95, its difference to the leader, its 95 % rank interval and the
groups of models the data cannot separate (``scoring.rank_models``), computed once per
leaderboard version (the verified submissions it ranks, by their evidence heads) and kept."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..evidence import sha256_hex
from ..scoring import Ranking, rank_models
from ._item_scores import scores_by_requirement

RESAMPLES = 2000
LEVEL = 0.95
KEPT_VERSIONS = 64
"""Rankings kept in each process (one per leaderboard version and skill/dimension filter)."""

Loader = Callable[[list[int]], Mapping[int, dict[str, Any] | None]]
"""Reads the kept ``requirement_scores`` of submissions, by id."""


@dataclass(frozen=True)
class Standing:
    """One model's place: the API's and page's fields of its leaderboard row."""

    score: float
    ci_low: float
    ci_high: float
    diff_to_leader: tuple[float, float, float]
    rank: int
    """Its group's first place: models the data cannot separate share it (a tie)."""
    rank_label: str
    """The places its group spans (``1–3``), or its one place (``4``)."""
    rank_interval: tuple[int, int]
    group: int
    tied: bool
    """Its group holds other models: the data cannot separate it from them."""
    requirements: int
    items: int
    position: int
    """Its place in score order (the ``score`` sort)."""

    def fields(self) -> dict[str, Any]:
        return {"score": self.score, "ci_low": self.ci_low, "ci_high": self.ci_high,
                "ci_width": round(self.ci_high - self.ci_low, 2), "rank": self.rank,
                "rank_label": self.rank_label, "rank_interval": list(self.rank_interval),
                "group": self.group, "tied": self.tied,
                "diff_to_leader": list(self.diff_to_leader),
                "requirements": self.requirements, "items": self.items}


@dataclass(frozen=True)
class Standings:
    """The ranked models and how they were ranked."""

    models: Mapping[str, Standing]
    paired: bool
    seed: int
    groups: tuple[tuple[str, ...], ...]

    def describe(self) -> dict[str, Any]:
        """The API's ``ranking`` object."""
        return {"paired": self.paired, "basis": _basis(self.paired, len(self.models)),
                "level": LEVEL, "resamples": RESAMPLES, "seed": self.seed,
                "groups": [list(group) for group in self.groups]}


def _basis(paired: bool, models: int) -> str:
    if models < 2:
        return "one model: nothing to compare"
    if paired:
        return ("paired: every model's verified runs answered the same requirements (the same "
                "plan), resampled together")
    return ("unpaired: the models' verified runs answered different requirements (each run's "
            "drawn from its own nonce), each model's resampled on its own; the intervals are "
            "wider than a paired comparison's")


class _Kept:
    """The rankings computed in this process, newest last; one computation per version at a
    time (concurrent readers of a new version wait for it rather than computing it too)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rankings: OrderedDict[tuple[Any, ...], Standings | None] = OrderedDict()
        self._computing: dict[tuple[Any, ...], threading.Lock] = {}

    def get(self, key: tuple[Any, ...], compute: Callable[[], Standings | None]
            ) -> Standings | None:
        with self._lock:
            if key in self._rankings:
                self._rankings.move_to_end(key)
                return self._rankings[key]
            computing = self._computing.setdefault(key, threading.Lock())
        with computing:
            with self._lock:
                if key in self._rankings:
                    return self._rankings[key]
            found = compute()
            with self._lock:
                self._rankings[key] = found
                while len(self._rankings) > KEPT_VERSIONS:
                    self._rankings.popitem(last=False)
                self._computing.pop(key, None)
            return found


_kept = _Kept()


def standings(runs: Mapping[str, Sequence[tuple[int, str]]], load: Loader, *,
              skill: str | None = None, dimension: str | None = None) -> Standings | None:
    """The ranking of the models whose verified submissions are ``runs`` (model -> its
    ``(id, evidence head)`` pairs), by their item scores (``dimension``'s, over the items of
    ``skill`` when given); ``None`` when no model has such a score. A version is known by
    its submissions' heads (a head binds a submission's whole evidence), so a ranking kept
    is never stale: a run verified, disputed or removed makes another version."""
    version = tuple(sorted((model, tuple(sorted(head for _, head in found)))
                           for model, found in runs.items() if found))
    if not version:
        return None
    return _kept.get((skill, dimension, version),
                     lambda: _compute(runs, load, skill=skill, dimension=dimension))


def _compute(runs: Mapping[str, Sequence[tuple[int, str]]], load: Loader, *,
             skill: str | None, dimension: str | None) -> Standings | None:
    kept = load(sorted(row_id for found in runs.values() for row_id, _ in found))
    scores: dict[str, dict[str, list[float]]] = {}
    for model, found in runs.items():
        pooled: dict[str, list[float]] = {}
        for row_id, _ in found:
            for key, values in scores_by_requirement(kept.get(row_id), skill=skill,
                                                     dimension=dimension).items():
                pooled.setdefault(key, []).extend(values)
        if pooled:
            scores[model] = pooled
    if not scores:
        return None
    keys = [frozenset(found) for found in scores.values()]
    paired = len(keys) > 1 and all(found == keys[0] for found in keys)
    # Seeded by the data: the same verified runs give the same ranking in every process.
    seed = int(sha256_hex(scores)[:15], 16)
    ranking = rank_models(scores, paired=paired, seed=seed, n_resamples=RESAMPLES, level=LEVEL)
    return Standings(models=_places(ranking, scores), paired=paired, seed=seed,
                     groups=tuple(tuple(group) for group in ranking.groups))


def _places(ranking: Ranking, scores: Mapping[str, Mapping[str, list[float]]]
            ) -> dict[str, Standing]:
    sizes: dict[int, int] = {}
    for row in ranking.models:
        sizes[row.group] = sizes.get(row.group, 0) + 1
    first: dict[int, int] = {}
    place = 1
    for group in sorted(sizes):
        first[group] = place
        place += sizes[group]
    places = {}
    for position, row in enumerate(ranking.models, start=1):
        start, size = first[row.group], sizes[row.group]
        diff = row.diff_to_leader
        places[row.model] = Standing(
            score=round(row.score.estimate, 2), ci_low=round(max(0.0, row.score.low), 2),
            ci_high=round(min(100.0, row.score.high), 2),
            diff_to_leader=(round(diff.estimate, 2), round(diff.low, 2), round(diff.high, 2)),
            rank=start, rank_label=f"{start}–{start + size - 1}" if size > 1 else str(start),
            rank_interval=(row.rank_low, row.rank_high), group=row.group, tied=size > 1,
            requirements=row.requirements,
            items=sum(len(values) for values in scores[row.model].values()), position=position)
    return places
