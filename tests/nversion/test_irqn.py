"""IRQN with a scripted similarity and scripted draws: retain, question, negate, the unjudged
acceptance, the retained-yet-negated draw, the iteration bound, and determinism by seed."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Literal

from pytest_req2rank.models import GenerationConfig
from pytest_req2rank.nversion import decide, irqn
from pytest_req2rank.nversion._irqn import Candidate, structural_pair

CONFIG = GenerationConfig()


class Draws(random.Random):
    """A Random whose ``random()`` answers the scripted values in order."""

    def __init__(self, values: Sequence[float]) -> None:
        super().__init__(0)
        self.values = list(values)

    def random(self) -> float:
        return self.values.pop(0)


def _similarity(table: dict[str, float]):
    """The similarity of a candidate (by its code) to anything: from ``table``."""
    return lambda code, other: table[code]


def _regenerated(log: list[tuple[str, str, float]], code: str = "new"):
    def regenerate(candidate: Candidate, decision: Literal["question", "negate"],
                   similarity: float) -> Candidate:
        log.append((candidate.id, decision, similarity))
        return Candidate(id=candidate.id + decision[0], code=code, thought=candidate.thought,
                         decisions=(*candidate.decisions, decision))
    return regenerate


def test_decisions_follow_the_thresholds() -> None:
    never = Draws([0.99] * 3)
    assert decide(0.1, never, CONFIG) == "retain"
    assert decide(0.3, never, CONFIG) == "question"
    assert decide(0.7, never, CONFIG) == "question"
    assert decide(0.71, never, CONFIG) == "negate"
    assert decide(0.1, Draws([0.2]), CONFIG) == "negate"  # p_qn2 = 0.3: retained, yet negated


def test_retain_question_negate_and_unjudged_in_one_iteration() -> None:
    history = [Candidate("h", "h", "seen")]
    candidates = [Candidate(c, c, "t") for c in ("low", "mid", "high", "skip", "low2")]
    table = {"low": 0.1, "mid": 0.5, "high": 0.9, "skip": 0.9, "low2": 0.1, "new": 0.0}
    log: list[tuple[str, str, float]] = []
    # judged (0.5 <= p_qn1) then kept (0.9 >= p_qn2); judged; judged; unjudged (0.8 > 0.7);
    # judged, retained yet negated (0.1 < p_qn2); then the next iteration judges the three
    # regenerated ones and keeps them.
    draws = Draws([0.5, 0.9, 0.5, 0.5, 0.8, 0.5, 0.1] + [0.5, 0.9] * 3)
    outcome = irqn(candidates, similarity=_similarity(table), rng=draws,
                   regenerate=_regenerated(log), config=CONFIG, history=history)
    assert [(j.candidate, j.decision) for j in outcome.judgements[:5]] == [
        ("low", "retain"), ("mid", "question"), ("high", "negate"), ("skip", "unjudged"),
        ("low2", "negate")]
    assert log == [("mid", "question", 0.5), ("high", "negate", 0.9), ("low2", "negate", 0.1)]
    assert [c.id for c in outcome.accepted] == ["low", "skip", "midq", "highn", "low2n"]
    assert outcome.unresolved == [] and draws.values == []
    assert outcome.counts() == {"unjudged": 1, "retain": 4, "question": 1, "negate": 2}
    assert outcome.accepted[2].decisions == ("question",)


def test_similarity_is_the_maximum_against_history_and_accepted() -> None:
    seen: list[tuple[str, str]] = []

    def similarity(code: str, other: str) -> float:
        seen.append((code, other))
        return {"a": 0.0, "b": 0.0}.get(code, 0.0) if other != "h" else 0.2

    candidates = [Candidate("a", "a", "t"), Candidate("b", "b", "t")]
    outcome = irqn(candidates, similarity=similarity, rng=Draws([0.0, 0.9] * 2),
                   regenerate=_regenerated([]), config=CONFIG,
                   history=[Candidate("h", "h", "t")])
    assert seen == [("a", "h"), ("b", "h"), ("b", "a")]
    assert [j.similarity for j in outcome.judgements] == [0.2, 0.2]


def test_outputs_still_pending_after_j_iterations_are_unresolved_not_lost() -> None:
    config = GenerationConfig(irqn_iterations=2)
    log: list[tuple[str, str, float]] = []
    outcome = irqn([Candidate("x", "x", "t")], similarity=lambda a, b: 1.0,
                   rng=Draws([0.0] * 4), regenerate=_regenerated(log, code="x"),
                   config=config, history=[Candidate("h", "h", "t")])
    assert [d for _, d, _ in log] == ["negate", "negate"]
    assert outcome.accepted == [] and [c.id for c in outcome.unresolved] == ["xnn"]


def test_the_same_seed_draws_the_same_decisions() -> None:
    codes = [f"def f(x):\n    return x + {k}\n" for k in range(6)]

    def run(seed: int) -> list[str]:
        outcome = irqn([Candidate(str(k), c, "t") for k, c in enumerate(codes)],
                       similarity=lambda a, b: 0.5 if a != b else 1.0,
                       rng=random.Random(f"{seed}:task"), regenerate=_regenerated([]),
                       config=CONFIG)
        return [j.decision for j in outcome.judgements]

    assert run(3) == run(3)
    assert len({tuple(run(seed)) for seed in range(8)}) > 1


def test_the_default_similarity_compares_structure() -> None:
    loop = "def f(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n"
    renamed = "def g(ys):\n    s = 0\n    for y in ys:\n        s += y\n    return s\n"
    builtin = "def f(xs):\n    return sum(xs)\n"
    assert structural_pair(loop, renamed) == 1.0
    assert structural_pair(loop, builtin) < 0.7
    assert 0 <= structural_pair(loop, "def broken(:\n") <= 1
