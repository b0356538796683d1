"""The run summary's detectable difference, and several runs' ranking table."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pytest_req2rank.models import ItemResult
from pytest_req2rank.report import (
    ResultsDocument,
    RunInfo,
    build_summary,
    detectable_line,
    rank_items,
    rank_runs,
    ranking_lines,
    ranking_section,
    render_markdown,
    validate_results,
)
from pytest_req2rank.report._ranking import shared_plan
from pytest_req2rank.report._wandb import wandb_metrics
from pytest_req2rank.scoring import detectable_difference


def _items(model: str, scores: list[float], *, rounds: int = 1) -> list[ItemResult]:
    return [ItemResult(item_id=f"dynamic/r{i}", dataset="dynamic", task_id=f"r{i}", model=model,
                       status="success" if score == 100 else "wrong_answer", kind="dynamic",
                       score=score, cluster=f"req{i // rounds}")
            for i, score in enumerate(scores)]


def _document(run_id: str, model: str, scores: list[float], seed: int = 1) -> ResultsDocument:
    items = _items(model, scores)
    return ResultsDocument(
        run=RunInfo(id=run_id, seed=seed, model=model, suite="dynamic", sandbox="process",
                    plugin_version="0", started_at="t0", finished_at="t1"),
        summary=build_summary(items, planned=len(items), wall_time_s=1.0, seed=seed),
        items=items)


def test_the_summary_states_the_smallest_difference_the_run_could_detect() -> None:
    scores = [100.0, 0.0, 50.0, 100.0, 80.0, 20.0]
    items = _items("m", scores, rounds=2)  # requirement means 50, 75, 50
    found = build_summary(items, planned=6, wall_time_s=1.0).detectable_difference
    assert found is not None
    sd = math.sqrt(2) * 14.433756729740644  # sqrt(2) x sd(50, 75, 50)
    assert found.requirements == 3 and found.basis == "like-model"
    assert found.sd == pytest.approx(sd, abs=0.01)
    assert found.points == pytest.approx(detectable_difference(sd, 3), abs=0.01)
    line = detectable_line(found)
    assert line.startswith(f"detectable difference: {found.points:.1f} points vs a model of")
    assert "3 requirements, 80% power, alpha 0.05" in line


def test_one_requirement_detects_nothing_and_the_document_stays_valid() -> None:
    assert build_summary(_items("m", [100.0, 0.0], rounds=2), planned=2,
                         wall_time_s=1.0).detectable_difference is None
    document = _document("r1", "m", [100.0, 0.0, 100.0])
    assert document.summary.detectable_difference is not None
    validate_results(document.model_dump(mode="json"))


def test_runs_of_one_plan_are_ranked_paired_others_unpaired() -> None:
    strong = [100.0] * 18 + [0.0] * 2
    weak = [100.0] * 6 + [0.0] * 14
    a, b = _document("ra", "model-a", strong), _document("rb", "model-b", weak)
    assert shared_plan([a, b]) is None
    ranked = rank_runs([b, a], seed=1)
    assert ranked.ranking.paired and ranked.why.startswith("paired")
    assert [row.model for row in ranked.ranking.models] == ["model-a", "model-b"]
    assert ranked.labels == {"model-b": "rb", "model-a": "ra"}
    other = _document("rc", "model-b", weak, seed=2)
    unpaired = rank_runs([a, other], seed=1)
    assert not unpaired.ranking.paired
    assert unpaired.why.startswith("unpaired: runs ra and rc differ in suite or seed")
    lines = ranking_lines(ranked.ranking)
    assert lines[0].split() == ["rank", "95%", "rank", "group", "model", "score", "95%", "CI",
                                "diff", "to", "#1", "95%", "CI", "reqs"]
    assert lines[1].split()[:5] == ["1", "1-1", "1", "model-a", "90.0"]
    assert lines[2].split()[:6] == ["2", "2-2", "2", "model-b", "30.0", "10.0-50.0"]


def test_the_same_model_twice_is_told_apart_and_ties_are_named() -> None:
    scores = [100.0, 0.0] * 10
    ranked = rank_runs([_document("r1", "m", scores), _document("r2", "m", scores)], seed=1)
    assert set(ranked.labels) == {"m (r1)", "m (r2)"}
    assert ranking_lines(ranked.ranking)[-1] == "the data cannot separate: m (r1) = m (r2)"


def test_ranking_needs_two_scored_runs() -> None:
    with pytest.raises(ValueError, match="at least two runs"):
        rank_runs([_document("r1", "m", [100.0])], seed=1)
    with pytest.raises(ValueError, match="named twice"):
        rank_runs([_document("r1", "m", [100.0])] * 2, seed=1)


def test_no_spread_gives_no_figure() -> None:
    assert build_summary(_items("m", [100.0] * 5), planned=5,
                         wall_time_s=1.0).detectable_difference is None


def test_the_markdown_report_states_the_detectable_difference() -> None:
    from pytest_req2rank.report import render_markdown

    document = _document("r1", "m", [100.0, 0.0, 100.0, 50.0])
    found = document.summary.detectable_difference
    assert found is not None
    assert (f"Detectable difference: {found.points:.1f} points against a model of this run's "
            "spread on the same 4 requirements") in render_markdown(document)


def _model_items(model: str, scores: list[float]) -> list[ItemResult]:
    return [ItemResult(item_id=f"dynamic/r{i}@{model}", dataset="dynamic", task_id=f"r{i}",
                       model=model, status="success" if score == 100 else "wrong_answer",
                       kind="dynamic", score=score, cluster=f"req{i}")
            for i, score in enumerate(scores)]


def test_a_run_of_several_models_states_the_paired_difference_it_could_detect() -> None:
    """Three models on four requirements: the figure is paired over the requirements the
    models share (four, not twelve items), from the pairs' spreads of differences."""
    a, b, c = [90.0, 70.0, 50.0, 30.0], [80.0, 70.0, 30.0, 30.0], [60.0, 50.0, 50.0, 10.0]
    items = _model_items("a", a) + _model_items("b", b) + _model_items("c", c)
    found = build_summary(items, planned=12, wall_time_s=1.0).detectable_difference
    assert found is not None and found.basis == "paired" and found.requirements == 4
    spreads = [float(np.std(np.subtract(x, y), ddof=1)) for x, y in ((a, b), (a, c), (b, c))]
    sd = math.sqrt(sum(s ** 2 for s in spreads) / 3)
    assert found.sd == pytest.approx(sd, abs=0.01)
    assert found.points == pytest.approx(detectable_difference(sd, 4), abs=0.01)
    assert "paired" in detectable_line(found)


def test_models_that_differ_by_a_constant_detect_no_spread() -> None:
    items = _model_items("a", [90.0, 70.0, 50.0]) + _model_items("b", [80.0, 60.0, 40.0])
    assert build_summary(items, planned=6, wall_time_s=1.0).detectable_difference is None


def _ranked_document() -> ResultsDocument:
    """A clear winner and two models the data cannot separate, ranked as a run ranks them."""
    items = (_model_items("strong", [100.0] * 12) + _model_items("weak", [0.0, 100.0] * 6)
             + _model_items("weak-too", [100.0, 0.0] * 6))
    summary = build_summary(items, planned=len(items), wall_time_s=1.0, seed=3)
    ranking = rank_items(items, seed=3)
    assert ranking is not None
    summary = summary.model_copy(update={"ranking": ranking_section(ranking, seed=3)})
    return ResultsDocument(
        run=RunInfo(id="r", seed=3, model="strong,weak,weak-too", suite="dynamic",
                    sandbox="process", plugin_version="0", started_at="t0", finished_at="t1"),
        summary=summary, items=items)


def test_the_markdown_report_of_several_models_shows_their_ranking() -> None:
    """The table is best first, the leader's difference left blank, and the tie named."""
    document = _ranked_document()
    markdown = render_markdown(document)
    table = markdown.split("## Ranking", 1)[1].split("\n\n")
    assert "3 models (paired: every model on the same requirements; 95% intervals)." in table[1]
    rows = [line for line in table[2].splitlines() if line.startswith("| ") and "---" not in line]
    assert rows[0].startswith("| rank | 95% rank | group | model |")
    assert rows[1].startswith("| 1 | 1-1 | 1 | `strong` | 100.0 | 100.0-100.0 | - |  | 12 |")
    assert {row.split(" | ")[3] for row in rows[2:]} == {"`weak`", "`weak-too`"}
    assert all(row.split(" | ")[2] == "2" for row in rows[2:])
    assert "The data cannot separate: `weak` = `weak-too`." in markdown \
        or "The data cannot separate: `weak-too` = `weak`." in markdown
    single = render_markdown(_document("r1", "m", [100.0, 0.0, 100.0]))
    assert "## Ranking" not in single


def test_weights_and_biases_gets_each_models_ranking() -> None:
    metrics = wandb_metrics(_ranked_document())
    assert metrics["ranking/strong/rank"] == 1 and metrics["ranking/strong/score"] == 100.0
    assert metrics["ranking/weak/group"] == metrics["ranking/weak-too/group"] == 2
    assert metrics["ranking/weak/diff_to_leader"] == -50.0
    assert metrics["run/detectable_difference"] > 0
