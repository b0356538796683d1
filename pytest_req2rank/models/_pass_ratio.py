"""Pass ratios of a requirement's probes: overall, by priority, and weighted by priority."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ._results import TestOutcome

PRIORITY_WEIGHTS = {"must": 3.0, "should": 2.0, "nice": 1.0}
"""Weights of the probe priorities in the execution score (must counts three times nice)."""


def pass_ratio_by_priority(tests: Sequence[TestOutcome], priorities: Mapping[str, str]) -> dict[str, float]:
    """Pass ratio of the probes of each priority that has probes."""
    totals: dict[str, list[int]] = {}
    for test in tests:
        counts = totals.setdefault(priorities.get(test.name, "must"), [0, 0])
        counts[0] += test.status == "success"
        counts[1] += 1
    return {priority: passed / total for priority, (passed, total) in totals.items()}


def weighted_pass_ratio(
    by_priority: Mapping[str, float], tests: Sequence[TestOutcome], priorities: Mapping[str, str]
) -> float:
    """Each probe weighs :data:`PRIORITY_WEIGHTS` of its priority; 0 without probes."""
    weights = [PRIORITY_WEIGHTS[priorities.get(t.name, "must")] for t in tests]
    if not weights:
        return 0.0
    passed = sum(w for w, t in zip(weights, tests, strict=True) if t.status == "success")
    return passed / sum(weights)
