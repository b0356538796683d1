"""Weights & Biases, offline: what a run logs, read back from the run's transaction log."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from pytest_req2rank.models import ItemResult, TestOutcome, Usage
from pytest_req2rank.report import (
    ResultsDocument,
    RunInfo,
    WandbUnavailable,
    build_summary,
    log_to_wandb,
    stratified_sample,
    write_results,
)
from pytest_req2rank.report._document import JudgeReport, JudgingSummary
from pytest_req2rank.report._nversion import NVersionSummary, PatternReport
from pytest_req2rank.report._wandb import wandb_metrics

from ._wandb_log import read_offline_run

pytest.importorskip("wandb", reason="the wandb extra is not installed")


def item(task: str, status: str) -> ItemResult:
    return ItemResult(
        item_id=f"demo/{task}", dataset="demo", task_id=task, model="m", status=status,
        pass_ratio=1.0 if status == "success" else 0.0, judge_time_s=0.25,
        tests=[TestOutcome(name="t", status="success" if status == "success" else "timeout")],
        score=100.0 if status == "success" else 0.0, prompt=f"write {task}",
        response=f"def {task}(): ...", usage=Usage(calls=1, completion_tokens=12, prompt_tokens=3),
    )


def document(items: list[ItemResult]) -> ResultsDocument:
    summary = build_summary(items, planned=len(items), wall_time_s=2.0, seed=3)
    summary = summary.model_copy(update={"qa_samples": stratified_sample(items, 2, seed=3)})
    return ResultsDocument(
        run=RunInfo(id="20260101-000000-abcdef", seed=3, model="gpt-x", suite="humaneval",
                    sandbox="process", plugin_version="0.1", started_at="t0", finished_at="t1",
                    settings={"model": "gpt-x", "temperature": 0.0, "qa_samples": 2}),
        summary=summary, items=items)


@pytest.fixture
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_DIR", str(tmp_path / "wandb-dir"))
    monkeypatch.setenv("WANDB_SILENT", "true")
    (tmp_path / "wandb-dir").mkdir()
    return tmp_path / "wandb-dir"


def the_run(directory: Path) -> Path:
    (run_dir,) = (directory / "wandb").glob("offline-run-*")
    return run_dir


def test_an_offline_run_holds_the_metrics_tables_and_results(offline: Path,
                                                             tmp_path: Path) -> None:
    doc = document([item("a", "success"), item("b", "timeout"), item("c", "timeout")])
    results = tmp_path / "results.json"
    write_results(doc, results)
    where = log_to_wandb(doc, "team/proj", results=results, directory=tmp_path / "unused")
    run_dir = the_run(offline)
    assert Path(where) == run_dir and not (tmp_path / "unused").exists()  # WANDB_DIR wins
    run = read_offline_run(run_dir)
    assert (run.project, run.name) == ("proj", doc.run.id)
    assert run.config["temperature"] == 0.0 and run.config["run"]["model"] == "gpt-x"
    logged = {k: v for k, v in run.summary.items() if not k.startswith("_")
              and not k.startswith(("items/", "qa_samples/"))}
    expected = wandb_metrics(doc)
    assert logged == expected
    # every flat name of the results, under its own name (Phase-0's eval/{dataset}/{metric})
    for name, value in doc.summary.metrics.items():
        if value is None:
            assert name not in logged
        else:
            assert logged[name] == (math.inf if value == "inf" else value), name
    assert logged["eval/demo/accepted_at_1"] == pytest.approx(1 / 3)
    assert logged["run/score"] == doc.summary.overall_score
    (row,) = run.history  # every key in one step
    assert set(row) >= set(expected)
    assert {"items", "qa_samples"} <= {k.split("/")[0] for k in row}
    types = sorted((kind, files) for kind, _, files in run.artifacts)
    assert types == [("results", ["results.json"]), ("run_table", ["items.table.json"]),
                     ("run_table", ["qa_samples.table.json"])]
    table = next(run_dir.glob("files/media/table/items_*.table.json")).read_text()
    assert all(f'"demo/{task}"' in table for task in "abc")


def test_nothing_solved_logs_an_infinite_cost(offline: Path) -> None:
    doc = document([item("a", "timeout")])
    assert doc.summary.metrics["eval/demo/cost_per_solved_tokens"] == "inf"
    log_to_wandb(doc, "proj")
    run = read_offline_run(the_run(offline))
    assert run.summary["eval/demo/cost_per_solved_tokens"] == math.inf
    assert [kind for kind, _, _ in run.artifacts] == ["run_table", "run_table"]  # no results


def test_judge_and_nversion_names() -> None:
    doc = document([item("a", "success")])
    pattern = PatternReport(pattern="Pat-CL1", family="code", tasks=2, correct=2,
                            no_consensus=0, fr=0.0, mcr=0.0, ccr=1.0, tpr=1.0, afvr=0.0,
                            faults=2, missing=0)
    nv = NVersionSummary(versions=3, tasks=2, version_items=6, versions_passed=6, left_out=0,
                         patterns=[pattern], diversity=[], mean_levenshtein=0.4,
                         mean_structural=None)
    doc = doc.model_copy(update={"summary": doc.summary.model_copy(update={"nversion": nv})})
    metrics = wandb_metrics(doc)
    assert metrics["nversion/Pat-CL1/ccr"] == 1.0 and metrics["nversion/versions"] == 3
    assert metrics["nversion/diversity/levenshtein"] == 0.4
    assert "nversion/diversity/structural" not in metrics


def test_judge_names() -> None:
    doc = document([item("a", "success")])
    judge = JudgeReport(judge="fake/judge-a", items=1, scored=1, invalid_answers=0, failures=0,
                        mean_overall=80.0, mean_latency_s=0.5, self_judging=False)
    judging = JudgingSummary(
        judges=["fake/judge-a"], items_judged=1, judge_failed=0, execution_weight=0.7,
        judge_dimensions={"quality": 75.0}, sigma=None, agreement_counts={"high": 1},
        alpha={"quality": None}, mean_item_ci95=None, per_judge=[judge])
    doc = doc.model_copy(update={"summary": doc.summary.model_copy(update={"judging": judging})})
    metrics = wandb_metrics(doc)
    assert {k: v for k, v in metrics.items() if k.startswith("judge/")} == {
        "judge/items_judged": 1, "judge/judge_failed": 0, "judge/execution_weight": 0.7,
        "judge/dimensions/quality": 75.0, "judge/agreement/high": 1,
        "judge/fake/judge-a/items": 1, "judge/fake/judge-a/scored": 1,
        "judge/fake/judge-a/invalid_answers": 0, "judge/fake/judge-a/failures": 0,
        "judge/fake/judge-a/mean_overall": 80.0, "judge/fake/judge-a/mean_latency_s": 0.5,
    }


def test_without_the_wandb_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "wandb", None)
    with pytest.raises(WandbUnavailable, match=r"^the wandb package is not installed; pip "
                       r"install 'pytest-req2rank\[wandb\]'"):
        log_to_wandb(document([item("a", "success")]), "proj")


def test_a_failed_init_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import wandb

    def refuse(**_: object) -> None:
        raise wandb.errors.CommError("api key not configured\n(no-tty)")

    monkeypatch.setattr(wandb, "init", refuse)
    with pytest.raises(WandbUnavailable) as info:
        log_to_wandb(document([item("a", "success")]), "proj")
    assert str(info.value) == ("W&B run not started (api key not configured (no-tty)); the "
                               "run's own outputs are kept")


def test_wandb_mode_disabled_logs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WANDB_MODE", "disabled")
    monkeypatch.setenv("WANDB_DIR", str(tmp_path))
    assert log_to_wandb(document([item("a", "success")]), "proj") == (
        "not logged: WANDB_MODE=disabled")
    assert list(tmp_path.iterdir()) == []
