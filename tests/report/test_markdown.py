"""The Markdown report: the Phase-0 layout from the results document, the baseline's
before/after table, and the GitHub step summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_req2rank.models import ItemResult, TestOutcome, Usage
from pytest_req2rank.report import (
    GateReport,
    ResultsDocument,
    RunInfo,
    append_step_summary,
    build_summary,
    compare_runs,
    render_markdown,
    stratified_sample,
    write_markdown,
)
from pytest_req2rank.report._document import BaselineReport


def item(task: str, status: str, ratio: float, dataset: str = "demo") -> ItemResult:
    return ItemResult(
        item_id=f"{dataset}/{task}", dataset=dataset, task_id=task, model="m", status=status,
        pass_ratio=ratio, tests=[TestOutcome(name="t0", status="success")], judge_time_s=0.5,
        score=100.0 if status == "success" else 0.0, cluster=f"{dataset}/{task}",
        usage=Usage(calls=1, completion_tokens=40, prompt_tokens=10, cost_usd=0.002),
        reason=None if status == "success" else f"{status}: t1 | broken",
    )


def document(items: list[ItemResult], run_id: str = "r1") -> ResultsDocument:
    return ResultsDocument(
        run=RunInfo(id=run_id, seed=5, model="gpt-x", suite="humaneval", sandbox="process",
                    plugin_version="0.1", started_at="2026-01-02T03:04:05+00:00",
                    finished_at="2026-01-02T03:05:00+00:00", settings={"temperature": 0.2}),
        summary=build_summary(items, planned=len(items), wall_time_s=4.0, seed=5),
        items=items,
    )


RUN = [item("a", "success", 1.0), item("b", "wrong_answer", 0.5), item("c", "timeout", 0.0),
       item("d", "success", 1.0, dataset="mbpp|x")]


def sampled(task: str, sample: int) -> ItemResult:
    return item(task, "success", 1.0).model_copy(update={
        "item_id": f"demo/{task}/s{sample}", "sample": sample})


@pytest.mark.parametrize(("samples", "protocol"), [
    ({"a": 5, "b": 5}, "5 samples per task"),  # a samples file of 5 completions a task
    ({"a": 2, "b": 4}, "2 to 4 samples per task"),
])
def test_the_protocol_counts_the_samples_the_tasks_had(samples: dict[str, int],
                                                        protocol: str) -> None:
    items = [sampled(task, n) for task, count in samples.items() for n in range(count)]
    lines = render_markdown(document(items)).splitlines()  # settings: no samples_per_task
    assert f"- Protocol: {protocol}, temperature 0.2" in lines


def test_the_report_has_the_phase0_tables_with_the_summary_numbers() -> None:
    doc = document(RUN)
    text = render_markdown(doc)
    lines = text.splitlines()
    assert lines[0] == "# req2rank report: `gpt-x` on `humaneval`"
    for heading in ("## Model", "## Score", "## Quality", "## Error distribution", "## Cost",
                    "## Model calls"):
        assert heading in lines
    assert "- Protocol: 1 sample per task, temperature 0.2" in lines
    assert "**50.0 / 100** = 100 × accepted@1 (95% CI 15.0–85.0, wilson)" in lines
    # accepted@1, pass_ratio mean/p50/p90, exec_success of the summary, per dataset
    assert "| demo | 33.3% | 0.500 | 0.500 | 0.900 | 66.7% |" in lines
    assert "| mbpp\\|x | 100.0% | 1.000 | 1.000 | 1.000 | 100.0% |" in lines
    assert "| demo | 0.0% | 0.0% | 33.3% | 0.0% | 33.3% | 33.3% | 0.0% | 0.0% |" in lines
    # avg tokens, avg and p95 judge time, throughput, cost per solved (tokens, time)
    assert "| demo | 40.0 | 500 ms | 500 ms | 0.75/s | 120.0 | 1.50 s |" in lines
    assert "| all | 4 | 40 | 160 | $0.0080 |" in lines
    assert "Before / after" not in text and "Q&A samples" not in text


def test_the_dict_of_the_results_json_renders_the_same() -> None:
    doc = document(RUN)
    assert render_markdown(doc.model_dump(mode="json")) == render_markdown(doc)


def test_gates_and_the_before_after_table_reuse_the_comparison() -> None:
    before = document([item("a", "success", 1.0), item("b", "success", 1.0),
                       item("c", "success", 1.0)], run_id="base")
    after_items = RUN[:3]
    gate, comparison = compare_runs(before, after_items, path="base.json", max_drop=5, seed=5)
    assert comparison is not None
    after = document(after_items)
    after = after.model_copy(update={"summary": after.summary.model_copy(
        update={"gates": [gate], "baseline": comparison})})
    lines = render_markdown(after, before).splitlines()
    assert "## Before / after (baseline run `base`)" in lines
    assert (f"| score (3 paired requirements) | 100.0 | 33.3 | {comparison.diff:+.1f} (CI95 "
            f"{comparison.diff_low:+.1f} to {comparison.diff_high:+.1f}) |") in lines
    assert "| demo accepted_at_1 | 1.000 | 0.333 | -0.667 |" in lines
    assert gate.passed and gate.message.startswith("no regression: difference -66.7 (CI95 -100.0")
    assert f"| baseline | ✅ passed | {gate.message} |" in lines
    assert any(line.startswith("Regressed most: `demo/b` 100 → 0") for line in lines)
    # without the baseline's document: the comparison's own row only
    alone = render_markdown(after).splitlines()
    assert "| demo accepted_at_1 | 1.000 | 0.333 | -0.667 |" not in alone
    assert any(line.startswith("| score (3 paired requirements) |") for line in alone)


def test_the_samples_section_lists_the_drawn_items() -> None:
    doc = document(RUN)
    doc = doc.model_copy(update={"summary": doc.summary.model_copy(
        update={"qa_samples": stratified_sample(doc.items, 2, seed=5)})})
    text = render_markdown(doc)
    assert "records are in `qa_samples.jsonl` beside the run's Q&A log." in text
    doc.run.settings["dir"] = "/out"
    assert "records are in `/out/runs/r1/qa_samples.jsonl`." in render_markdown(doc)
    assert "Drawn of each status: success 1/1, timeout 1/1, wrong_answer 0/1." in text
    assert "| `demo/c` | timeout | 0.00 | 0.0 | timeout: t1 \\| broken |" in text


def test_write_and_append_to_the_step_summary(tmp_path: Path) -> None:
    doc = document(RUN)
    path = write_markdown(doc, tmp_path / "out" / "report.md")
    summary = tmp_path / "step_summary.md"
    summary.write_text("earlier step\n")
    assert append_step_summary(path.read_text(), {"GITHUB_STEP_SUMMARY": str(summary)}) == summary
    assert summary.read_text() == "earlier step\n" + render_markdown(doc)
    assert append_step_summary("x", {}) is None


def test_a_gate_that_passed_is_marked() -> None:
    doc = document(RUN)
    doc = doc.model_copy(update={"summary": doc.summary.model_copy(update={"gates": [
        GateReport(name="fail-under", passed=True, message="score 50.0 >= 40")]})})
    assert "| fail-under | ✅ passed | score 50.0 >= 40 |" in render_markdown(doc)


@pytest.mark.parametrize("max_drop", [0.0, 2.5])
def test_the_tolerated_drop_is_stated(max_drop: float) -> None:
    doc = document(RUN)
    report = BaselineReport(path="b.json", run_id="b", baseline_score=1, candidate_score=1,
                            diff=0, diff_low=0, diff_high=0, n_pairs=1, max_drop=max_drop)
    doc = doc.model_copy(update={"summary": doc.summary.model_copy(update={"baseline": report})})
    assert f"entirely below {-max_drop or 0:g}." in render_markdown(doc)


def test_pass_at_k_columns_with_several_samples() -> None:
    items = [ItemResult(item_id=f"demo/{task}/s{k}", dataset="demo", task_id=task, model="m",
                        status="success" if (task, k) != ("b", 1) else "wrong_answer",
                        pass_ratio=1.0 if (task, k) != ("b", 1) else 0.5, sample=k,
                        cluster=f"demo/{task}", score=100.0)
             for task in "ab" for k in range(10)]
    lines = render_markdown(document(items)).splitlines()
    assert "| Dataset | accepted@1 | pass_ratio_mean | pass_ratio_p50 | pass_ratio_p90 | " \
           "exec_success | pass@10 |" in lines
    assert "| demo | 95.0% | 0.975 | 1.000 | 1.000 | 100.0% | 100.0% |" in lines
    once = render_markdown(document(RUN))  # pass@1 is accepted@1: no column of its own
    assert "| Dataset | accepted@1 | pass_ratio_mean | pass_ratio_p50 | pass_ratio_p90 | " \
           "exec_success |" in once.splitlines()


def test_the_nversion_table() -> None:
    from pytest_req2rank.report._nversion import NVersionSummary, PatternReport

    doc = document(RUN)
    nv = NVersionSummary(
        versions=3, tasks=2, version_items=6, versions_passed=5, left_out=0, diversity=[],
        patterns=[PatternReport(pattern="Pat-CL2", family="code", tasks=2, correct=1,
                                no_consensus=1, fr=0.5, mcr=0.25, ccr=0.5, tpr=0.75, afvr=0.1,
                                faults=4, missing=0)],
        mean_levenshtein=0.42, mean_structural=None)
    doc = doc.model_copy(update={"summary": doc.summary.model_copy(update={"nversion": nv})})
    text = render_markdown(doc)
    assert "3 versions × 2 tasks; versions passing their tests: 5/6." in text
    assert "| Pat-CL2 | 0.500 | 0.250 | 0.500 | 0.750 | 0.100 | 2 | 1 | 4 | 0 |" in text
    assert "LS 0.420, structural (codebleu-syntax-dataflow) n/a." in text
