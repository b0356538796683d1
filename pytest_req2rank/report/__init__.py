"""Outputs of a run: results JSON (and its schema), terminal summary, Q&A log, HTML report."""

from ._document import (
    BaselineReport,
    GateReport,
    InvalidResults,
    PassAtK,
    RegressionReport,
    ResultsDocument,
    RunInfo,
    RunSummary,
    generated_schema,
    load_results,
    results_schema,
    validate_results,
    write_results,
)
from ._html import html_report_problem, render_html, write_html
from ._nversion import (
    GenerationSummary,
    NVersionSummary,
    PatternReport,
    TaskDiversity,
    diversity_usage,
    nversion_summary,
)
from ._qalog import append_qa, qa_record
from ._summary import build_summary, pass_at_k_by_dataset, run_score, scores_by_requirement
from ._terminal import render_summary

__all__ = [
    "BaselineReport",
    "GateReport",
    "GenerationSummary",
    "InvalidResults",
    "NVersionSummary",
    "PassAtK",
    "PatternReport",
    "RegressionReport",
    "ResultsDocument",
    "RunInfo",
    "RunSummary",
    "TaskDiversity",
    "append_qa",
    "build_summary",
    "diversity_usage",
    "generated_schema",
    "html_report_problem",
    "load_results",
    "nversion_summary",
    "pass_at_k_by_dataset",
    "qa_record",
    "render_html",
    "render_summary",
    "results_schema",
    "run_score",
    "scores_by_requirement",
    "validate_results",
    "write_html",
    "write_results",
]
