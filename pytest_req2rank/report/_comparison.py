"""One run against another on the requirements both scored: the baseline gate's comparison,
shared by the run's ``--r2r-baseline`` gate and ``req2rank compare``."""

from __future__ import annotations

from pathlib import Path

from ..models import ItemResult
from ..scoring import regression_gate
from ._document import BaselineReport, GateReport, RegressionReport, ResultsDocument
from ._summary import model_of, scores_by_requirement


def run_models(document: ResultsDocument) -> list[str]:
    """The models of a run of several models, in the order its items first name them; empty
    for a run of one model."""
    return list(dict.fromkeys(model for item in document.items
                              if (model := model_of(item)) is not None))


def answered_by(items: list[ItemResult], model: str) -> list[ItemResult]:
    """The items ``model`` answered in a run of several models."""
    return [item for item in items if model_of(item) == model]


def compare_runs(
    baseline: ResultsDocument, candidate: list[ItemResult], *, path: Path | str,
    max_drop: float, seed: int, model: str | None = None,
) -> tuple[GateReport, BaselineReport | None]:
    """The baseline gate's verdict and, when the runs share a requirement, the paired
    comparison (candidate - baseline per requirement, its bootstrap CI95 seeded by ``seed``,
    the requirements that dropped most). ``path`` says where the baseline came from;
    ``model``: in a baseline of several models, the one whose answers are the baseline."""
    before = baseline.items if model is None else answered_by(baseline.items, model)
    try:
        comparison = regression_gate(
            scores_by_requirement(before), scores_by_requirement(candidate),
            max_drop=max_drop, seed=seed,
        )
    except ValueError as exc:
        return GateReport(name="baseline", passed=False, message=str(exc)), None
    gate = comparison.gate
    return GateReport(name=gate.name, passed=gate.passed, message=gate.message), BaselineReport(
        path=str(path), run_id=baseline.run.id,
        baseline_score=round(comparison.baseline_score, 2),
        candidate_score=round(comparison.candidate_score, 2),
        diff=round(comparison.diff.mean_diff, 2), diff_low=round(comparison.diff.low, 2),
        diff_high=round(comparison.diff.high, 2), n_pairs=comparison.diff.n_pairs,
        max_drop=max_drop,
        worst=[RegressionReport(requirement=r.requirement, baseline=r.baseline,
                                candidate=r.candidate, diff=r.diff)
               for r in comparison.worst],
    )
