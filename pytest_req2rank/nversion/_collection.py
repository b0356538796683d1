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
    """N versions from ``pool``: distinct programs first (a program identical to one picked
    waits until no distinct one is left), and among them passing IRQN-accepted, passing
    unresolved, failing accepted, failing unresolved, in that order of preference; within a
    group, greedily the candidate whose highest similarity to the picked ones is lowest (ties:
    the earlier one). Identical programs, and repeats when the pool has fewer than N, are
    marked ``repeated``."""
    groups = [[g for g in pool if g.passed == passed and g.accepted == accepted]
              for passed in (True, False) for accepted in (True, False)]
    chosen: list[Graded] = []
    for distinct_only in (True, False):
        for group in groups:
            left = [g for g in group if g not in chosen]
            while len(chosen) < n:
                taken = {_text(c) for c in chosen}
                left = [g for g in left if not distinct_only or _text(g) not in taken]
                if not left:
                    break
                best = min(left, key=lambda g: max(
                    (similarity(g.candidate.code, c.candidate.code) for c in chosen),
                    default=0.0))
                chosen.append(best)
                left.remove(best)
    picked = [Picked(g, repeated=_text(g) in {_text(c) for c in chosen[:k]})
              for k, g in enumerate(chosen)]
    if chosen:
        picked += [Picked(chosen[k % len(chosen)], repeated=True)
                   for k in range(n - len(chosen))]
    return picked


def _text(graded: Graded) -> str:
    return graded.candidate.code.strip()
