"""The results JSON: schema shipped with the package, summary, validation, rendering, Q&A log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_req2rank.models import ItemResult, JudgeVerdict, TestOutcome, Usage
from pytest_req2rank.report import (
    InvalidResults,
    ResultsDocument,
    RunInfo,
    build_summary,
    qa_record,
    render_summary,
    run_score,
    scores_by_requirement,
    validate_results,
    write_results,
)
from pytest_req2rank.report._document import generated_schema, results_schema


def item(task: str, status: str, ratio: float, tokens: int | None = None,
         dataset: str = "demo") -> ItemResult:
    tests = [TestOutcome(name="t0", status="success"),
             TestOutcome(name="t1", status="wrong_answer" if ratio < 1 else "success",
                         input="1", expected="2", actual="3")]
    return ItemResult(
        item_id=f"{dataset}/{task}", dataset=dataset, task_id=task, model="m", status=status,
        pass_ratio=ratio, tests=tests, judge_time_s=0.5,
        score=None if status.endswith("api_error") else (100.0 if status == "success" else 0.0),
        usage=Usage(calls=1, completion_tokens=tokens, prompt_tokens=tokens),
    )


def document(items: list[ItemResult], planned: int | None = None) -> ResultsDocument:
    return ResultsDocument(
        run=RunInfo(id="r1", seed=1, model="m", suite="jsonl:demo.jsonl", sandbox="process",
                    plugin_version="0", started_at="t0", finished_at="t1"),
        summary=build_summary(items, planned=planned or len(items), wall_time_s=2.0),
        items=items,
    )


def test_shipped_schema_matches_the_models() -> None:
    assert results_schema() == generated_schema(), (
        "results.schema.json is stale; regenerate it with: python -c \"import json; "
        "from pytest_req2rank.report._document import generated_schema; print(json.dumps("
        "generated_schema(), indent=2))\" > pytest_req2rank/report/results.schema.json"
    )


def test_summary_score_interval_and_infrastructure_exclusion() -> None:
    items = [item("a", "success", 1.0, 10), item("b", "wrong_answer", 0.5, 30),
             item("c", "api_error", 0.0)]
    summary = build_summary(items, planned=4, wall_time_s=2.0)
    assert summary.overall_score == 50.0
    assert summary.ci95 is not None and summary.ci95.low < 50 < summary.ci95.high
    assert summary.status_counts["api_error"] == 1
    assert summary.phase0["demo"]["accepted_at_1"] == 0.5
    assert summary.metrics["eval/demo/api_error_rate"] == pytest.approx(1 / 3)
    assert summary.totals.completion_tokens == 40
    assert any("1 of 4 planned items have no result" in w for w in summary.warnings)
    assert any(w.startswith("ALERT: eval/demo/api_error_rate") for w in summary.warnings)


def test_nothing_solved_writes_inf_as_a_string(tmp_path: Path) -> None:
    doc = document([item("a", "wrong_answer", 0.5, 10)])
    write_results(doc, tmp_path / "out" / "results.json")
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert data["summary"]["phase0"]["demo"]["cost_per_solved_tokens"] == "inf"
    assert data["summary"]["overall_score"] == 0.0


def test_validation_rejects_a_bad_document() -> None:
    data = document([item("a", "success", 1.0)]).model_dump(mode="json")
    validate_results(data)
    data["items"][0]["status"] = "passed"
    with pytest.raises(InvalidResults) as caught:
        validate_results(data)
    assert caught.value.where == "items/0/status"
    assert "passed" in caught.value.message


def test_rendered_summary_has_one_table_per_dataset() -> None:
    items = [item("a", "success", 1.0, 10), item("b", "success", 1.0, dataset="other")]

    class Paths:
        results = Path("r.json")
        qa_log = Path("qa.jsonl")
        store = Path("db")

    text = "\n".join(render_summary(document(items), Paths()))
    assert "score: 100.0/100" in text
    assert "[demo]" in text and "[other]" in text
    assert "accepted@1 100.0%" in text
    assert "results: r.json" in text



class _Paths:
    results = Path("r.json")
    qa_log = Path("qa.jsonl")
    store = Path("db")


def _usage_line(items: list[ItemResult], model: str, judges: list[str]) -> list[str]:
    doc = document(items)
    doc = doc.model_copy(update={"run": doc.run.model_copy(update={"model": model,
                                                                  "judges": judges})})
    lines = render_summary(doc, _Paths())
    start = next(i for i, line in enumerate(lines) if line.startswith("model calls"))
    return [lines[start], *[line for line in lines[start + 1:] if line.startswith("  ")]]


@pytest.mark.parametrize(("model", "judges", "expected"), [
    ("r2r/reference", [], ["model calls 2 (answered offline: no tokens, no cost)"]),
    ("r2r/samples:s.jsonl", ["r2r/static"],
     ["model calls 2 (answered offline: no tokens, no cost)"]),
    ("openai/gpt-4o", [], ["model calls 2 (no tokens or cost reported)"]),
])
def test_a_usage_without_tokens_or_cost_says_so_once(model: str, judges: list[str],
                                                    expected: list[str]) -> None:
    items = [item("a", "success", 1.0), item("b", "success", 1.0)]
    assert _usage_line(items, model, judges) == expected


def test_a_usage_with_tokens_lists_what_is_known_and_unknown() -> None:
    judged = item("a", "success", 1.0, 10).model_copy(update={"judges": [JudgeVerdict(
        judge="r2r/static", usage=Usage(calls=1))]})
    assert _usage_line([judged], "openai/gpt-4o", ["r2r/static"]) == [
        "model calls 2 | prompt tokens 10 | completion tokens 10 | cost unknown",
        "  target: 1 | prompt tokens 10 | completion tokens 10 | cost unknown",
        "  judges: 1 (answered offline: no tokens, no cost)",
    ]

def test_qa_record_follows_the_spec_format() -> None:
    record = qa_record(item("a", "wrong_answer", 0.5, 12), temperature=0.0, max_new_tokens=99)
    assert record["problem_id"] == "a"
    assert record["quality_metrics"] == {"pass_ratio": 0.5, "accepted": False,
                                         "final_status": "wrong_answer", "reason": None,
                                         "score": 0.0, "panel": None}
    assert record["error_breakdown"]["passed"] == 1
    assert record["error_breakdown"]["wrong_answer"] == 1
    assert record["execution_details"]["first_failed_case"]["expected"] == "2"
    assert record["metadata"] == {"model": "m", "temperature": 0.0, "max_new_tokens": 99}


def test_judged_items_get_a_clustered_bootstrap_interval() -> None:
    items = [
        ItemResult(item_id=f"dynamic/r{i}", dataset="dynamic", task_id=f"r{i}", model="m",
                   status="success", kind="dynamic", score=score, cluster=f"req{i // 2}")
        for i, score in enumerate([80.0, 70.0, 60.0, 90.0, 50.0, 40.0])
    ]
    score, interval = run_score(items, seed=5)
    assert score == 65.0
    assert interval is not None and interval.method == "bootstrap-clustered"
    assert interval.low < 65.0 < interval.high
    assert run_score(items, seed=5) == (score, interval)
    assert scores_by_requirement(items) == {"req0": 75.0, "req1": 75.0, "req2": 45.0}
