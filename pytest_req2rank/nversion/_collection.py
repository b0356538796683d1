"""Collection: N versions out of the graded candidates, passing ones first, each next one the
least similar to those already picked; fewer than N candidates repeat (and say so)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..models import ExecutionResult
from ._irqn import Candidate, Similarity


@dataclass(frozen=True)
class Graded:
    """A candidate with its grading; ``accepted``: IRQN accepted it (else it was still pending
    after J iterations); ``repairs``: repair iterations it went through."""

    candidate: Candidate
    execution: ExecutionResult
    accepted: bool = True
    repairs: int = 0

    @property
    def passed(self) -> bool:
        return self.execution.status == "success"


@dataclass(frozen=True)
class Picked:
    graded: Graded
    repeated: bool


def collect(pool: Sequence[Graded], n: int, similarity: Similarity) -> list[Picked]:
    """N versions from ``pool``: passing IRQN-accepted, passing unresolved, failing accepted,
    failing unresolved, in that order of preference; within a group, greedily the candidate
    whose highest similarity to the picked ones is lowest (ties: the earlier one)."""
    groups = [[g for g in pool if g.passed == passed and g.accepted == accepted]
              for passed in (True, False) for accepted in (True, False)]
    chosen: list[Graded] = []
    for group in groups:
        left = list(group)
        while left and len(chosen) < n:
            best = min(left, key=lambda g: max(
                (similarity(g.candidate.code, c.candidate.code) for c in chosen), default=0.0))
            chosen.append(best)
            left.remove(best)
    picked = [Picked(g, repeated=False) for g in chosen]
    if chosen:
        picked += [Picked(chosen[k % len(chosen)], repeated=True)
                   for k in range(n - len(chosen))]
    return picked
