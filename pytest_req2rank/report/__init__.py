"""Outputs of a run: results JSON (and its schema), terminal summary, Q&A log, HTML and
Markdown reports, stratified Q&A samples, Weights & Biases."""

from ._comparison import compare_runs
from ._document import (
    BaselineReport,
    GateReport,
    InvalidResults,
    JudgeReport,
    JudgingSummary,
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
from ._markdown import (
    STEP_SUMMARY_ENV,
    append_step_summary,
    as_document,
    render_markdown,
    report_path,
    write_markdown,
)
from ._nversion import (
    GenerationSummary,
    NVersionSummary,
    PatternReport,
    TaskDiversity,
    diversity_usage,
    nversion_summary,
)
from ._qalog import append_qa, qa_record
from ._run import in_plan_order, item_counts, summarize_run, version_items
from ._samples import (
    SAMPLES_FILE,
    DatasetSample,
    QaSamples,
    allocate,
    sample_records,
    stratified_sample,
    write_samples,
)
from ._summary import build_summary, pass_at_k_by_dataset, run_score, scores_by_requirement
from ._terminal import baseline_lines, render_summary
from ._wandb import WandbUnavailable, log_to_wandb, wandb_metrics

__all__ = [
    "SAMPLES_FILE",
    "STEP_SUMMARY_ENV",
    "BaselineReport",
    "DatasetSample",
    "GateReport",
    "GenerationSummary",
    "InvalidResults",
    "JudgeReport",
    "JudgingSummary",
    "NVersionSummary",
    "PassAtK",
    "PatternReport",
    "QaSamples",
    "RegressionReport",
    "ResultsDocument",
    "RunInfo",
    "RunSummary",
    "TaskDiversity",
    "WandbUnavailable",
    "allocate",
    "append_qa",
    "append_step_summary",
    "as_document",
    "baseline_lines",
    "build_summary",
    "compare_runs",
    "diversity_usage",
    "generated_schema",
    "generated_schema",
    "html_report_problem",
    "in_plan_order",
    "item_counts",
    "load_results",
    "log_to_wandb",
    "nversion_summary",
    "pass_at_k_by_dataset",
    "qa_record",
    "render_html",
    "render_markdown",
    "render_summary",
    "report_path",
    "results_schema",
    "run_score",
    "sample_records",
    "scores_by_requirement",
    "stratified_sample",
    "summarize_run",
    "validate_results",
    "version_items",
    "wandb_metrics",
    "write_html",
    "write_markdown",
    "write_results",
    "write_samples",
]
