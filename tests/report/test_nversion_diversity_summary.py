"""The N-version summary's diversity: results written before SDP and MBCS were recorded still
read and render, and an N-version summary has no pass@k row."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_req2rank.report import ResultsDocument, RunInfo, RunSummary
from pytest_req2rank.report._document import PassAtK
from pytest_req2rank.report._nversion import NVersionSummary
from pytest_req2rank.report._terminal import nversion_lines, render_summary

OLD_SUMMARY: dict[str, Any] = {
    "versions": 3, "tasks": 1, "version_items": 3, "versions_passed": 3, "left_out": 0,
    "patterns": [], "diversity": [{"task": "HumanEval/0", "levenshtein": 0.5,
                                   "structural": 0.4}],
    "mean_levenshtein": 0.5, "mean_structural": 0.4,
    "structural_measure": "codebleu-syntax-dataflow"}


def test_a_summary_written_before_sdp_and_mbcs_reads_and_says_so() -> None:
    summary = NVersionSummary.model_validate(OLD_SUMMARY)
    assert summary.mean_sdp is None and summary.diversity[0].sdp is None
    lines = nversion_lines(summary)
    assert "    SDP not measured (not recorded in these results)" in lines
    assert "    MBCS not measured (not recorded in these results)" in lines
    assert any(line.startswith("    HumanEval/0") and "SDP n/a" in line for line in lines)


class _Paths:
    results = qa_log = store = Path("out")


def test_an_nversion_summary_has_no_pass_at_k_row() -> None:
    metrics = {name: 0.0 for name in (
        "accepted_at_1", "pass_ratio_mean", "pass_ratio_p50", "pass_ratio_p90",
        "exec_success_rate", "syntax_error_rate", "runtime_error_rate", "timeout_rate",
        "wrong_answer_rate", "success_rate", "avg_total_gen_tokens", "cost_per_solved_tokens",
        "throughput", "avg_total_judge_time", "p50_total_judge_time", "p95_total_judge_time",
        "p99_total_judge_time", "cost_per_solved_judge_time", "api_error_rate",
        "sandbox_error_rate")}
    passes = PassAtK(values={"pass@1": 1.0}, tasks=1, samples=3, min_samples=3, max_samples=3,
                     correct=3)
    summary = RunSummary(overall_score=100.0, items_total=3, items_planned=3,
                         status_counts={}, phase0={"nversion": metrics},
                         pass_at_k={"nversion": passes}, wall_time_s=1.0)
    run = RunInfo(id="r", seed=1, model="m", suite="s", sandbox="process",
                  plugin_version="0", started_at="t", finished_at="t")
    plain = render_summary(ResultsDocument(run=run, summary=summary, items=[]), _Paths())
    assert any("pass@k" in line for line in plain)  # an ordinary run keeps its row
    nversion = summary.model_copy(update={"nversion": NVersionSummary.model_validate(
        OLD_SUMMARY)})
    lines = render_summary(ResultsDocument(run=run, summary=nversion, items=[]), _Paths())
    assert not any("pass@k" in line for line in lines)
    assert any(line.startswith("N-version: 3 versions x 1 tasks") for line in lines)
