"""IRQN (iterative retain, question, negate) over candidate implementations.

Per iteration (at most J), each pending candidate is, with probability 1 − p_qn1, accepted
unjudged; otherwise judged by its similarity s = the maximum against the history (outputs
accepted earlier) plus the candidates accepted so far: s < θ_diff retains it (yet negates it
with probability p_qn2), θ_diff ≤ s ≤ θ_ident questions it (the model refines it to be more
distinctive), s > θ_ident negates it (the model writes a completely different paradigm with
different data structures). Questioned and negated outputs are the next iteration's pending
ones; those still pending after J iterations are returned apart (``unresolved``), never lost.
The similarity is any callable over two code strings; the random draws come from ``rng``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..models import GenerationConfig
from ._diversity import levenshtein_similarity, structural_similarity

Similarity = Callable[[str, str], float]
"""Similarity of two programs in [0, 1] (1: the same)."""
def structural_pair(a: str, b: str) -> float:
    """The structural similarity of two programs (the default of IRQN and collection); two that
    cannot be compared (one does not parse) count by their text (Levenshtein)."""
    try:
        return structural_similarity([a, b]).mean
    except (ValueError, SyntaxError):
        return levenshtein_similarity(a, b)


Decision = Literal["unjudged", "retain", "question", "negate"]


@dataclass(frozen=True)
class Candidate:
    """One implementation: ``id`` names its branch (``t0.s1.i0``, then ``+q``/``+n`` per IRQN
    regeneration), ``thought`` its idea, ``decisions`` the IRQN decisions of its line,
    ``prompt`` and ``response`` the call that wrote its code."""

    id: str
    code: str
    thought: str
    decisions: tuple[str, ...] = ()
    prompt: str = field(default="", compare=False, repr=False)
    response: str = field(default="", compare=False, repr=False)


Regenerate = Callable[[Candidate, Literal["question", "negate"], float], Candidate]
"""Asks the model to question or negate a candidate (given its similarity); the new one."""


@dataclass(frozen=True)
class Judgement:
    iteration: int
    candidate: str
    decision: Decision
    similarity: float | None


@dataclass
class IRQNOutcome:
    accepted: list[Candidate]
    unresolved: list[Candidate]
    judgements: list[Judgement] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(("unjudged", "retain", "question", "negate"), 0)
        for judgement in self.judgements:
            counts[judgement.decision] += 1
        return counts


def irqn(candidates: Sequence[Candidate], *, similarity: Similarity, rng: random.Random,
         regenerate: Regenerate, config: GenerationConfig,
         history: Sequence[Candidate] = ()) -> IRQNOutcome:
    """Run IRQN over ``candidates`` against ``history`` (see the module)."""
    accepted: list[Candidate] = []
    pending = list(candidates)
    outcome = IRQNOutcome(accepted=accepted, unresolved=[])
    for iteration in range(config.irqn_iterations):
        if not pending:
            break
        regenerated: list[Candidate] = []
        for candidate in pending:
            if rng.random() > config.p_qn1:
                accepted.append(candidate)
                outcome.judgements.append(Judgement(iteration, candidate.id, "unjudged", None))
                continue
            references = [*history, *accepted]
            score = max((similarity(candidate.code, r.code) for r in references), default=0.0)
            decision = decide(score, rng, config)
            outcome.judgements.append(Judgement(iteration, candidate.id, decision, score))
            if decision == "retain":
                accepted.append(candidate)
            else:
                regenerated.append(regenerate(candidate, decision, score))
        pending = regenerated
    outcome.unresolved = pending
    return outcome


def decide(similarity: float, rng: random.Random, config: GenerationConfig
           ) -> Literal["retain", "question", "negate"]:
    """The decision for a judged output of ``similarity`` (draws from ``rng`` only when it
    would be retained)."""
    if similarity < config.theta_diff:
        return "negate" if rng.random() < config.p_qn2 else "retain"
    if similarity <= config.theta_ident:
        return "question"
    return "negate"
