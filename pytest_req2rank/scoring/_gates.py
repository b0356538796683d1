"""Quality gates for CI: a minimum score, and no regression against a baseline run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from ._baseline import PairedDiff, Regression, paired_bootstrap_diff, regressions

EXIT_GATE_FAILED = 6
"""Session exit code when a quality gate failed (pytest's own codes are 0-5)."""

GateOn = Literal["score", "ci-low"]


@dataclass(frozen=True)
class GateResult:
    """The verdict of one gate, with a one-line explanation."""

    name: str
    passed: bool
    message: str


@dataclass(frozen=True)
class BaselineComparison:
    """Paired comparison of a run with its baseline, per requirement."""

    gate: GateResult
    baseline_score: float
    candidate_score: float
    diff: PairedDiff
    worst: list[Regression]


def score_gate(
    score: float | None, ci_low: float | None, *, fail_under: float, gate_on: GateOn = "score"
) -> GateResult:
    """Fail when the score (or the lower bound of its 95 % interval) is below ``fail_under``."""
    value = score if gate_on == "score" else ci_low
    what = "score" if gate_on == "score" else "lower CI95 bound"
    if value is None:
        return GateResult("fail-under", False, f"no {what} to compare with {fail_under:g}: nothing was scored")
    passed = value >= fail_under
    relation = ">=" if passed else "<"
    return GateResult("fail-under", passed, f"{what} {value:.1f} {relation} {fail_under:g}")


def regression_gate(
    baseline: Mapping[str, float],
    candidate: Mapping[str, float],
    *,
    max_drop: float,
    seed: int,
    n_resamples: int = 2000,
    top: int = 5,
) -> BaselineComparison:
    """Fail when the paired bootstrap CI95 of (candidate - baseline) lies entirely below ``-max_drop``.

    Scores are paired by requirement; only requirements present in both runs count.
    Raises ``ValueError`` when the runs share no requirement.
    """
    diff = paired_bootstrap_diff(baseline, candidate, seed=seed, n_resamples=n_resamples)
    shared = [key for key in candidate if key in baseline]
    base_mean = sum(baseline[key] for key in shared) / len(shared)
    cand_mean = sum(candidate[key] for key in shared) / len(shared)
    passed = not diff.high < -max_drop
    verdict = "no regression" if passed else "regression"
    message = (
        f"{verdict}: difference {diff.mean_diff:+.1f} (CI95 {diff.low:+.1f} to {diff.high:+.1f}) "
        f"over {diff.n_pairs} paired requirements; tolerated drop {max_drop:g}"
    )
    return BaselineComparison(
        gate=GateResult("baseline", passed, message),
        baseline_score=base_mean,
        candidate_score=cand_mean,
        diff=diff,
        worst=regressions(baseline, candidate, top=top),
    )
