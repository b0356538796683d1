"""Outputs of a run: results JSON (and its schema), terminal summary, Q&A log, HTML and
Markdown reports, stratified Q&A samples, Weights & Biases."""

from ._comparison import answered_by, compare_runs, run_models
from ._document import (
    GateReport,
    InvalidResults,
    RankingSection,
    ResultsDocument,
    RunInfo,
    RunSummary,
    load_results,
    validate_results,
    write_results,
)
from ._html import html_report_problem, render_html, write_html
from ._markdown import append_step_summary, render_markdown, report_path, write_markdown
from ._qalog import append_qa, qa_record
from ._ranking import rank_items, rank_runs, ranking_lines, ranking_section, section_ranking
from ._run import in_plan_order, item_counts, resumed_run, summarize_run, version_items
from ._samples import SAMPLES_FILE, allocate, sample_records, stratified_sample, write_samples
from ._summary import (
    build_summary,
    model_summary,
    pass_at_k_by_dataset,
    requirement_of,
    run_detectable_difference,
    run_score,
    scores_by_cluster,
    scores_by_requirement,
)
from ._terminal import baseline_lines, detectable_line, render_summary
from ._wandb import WandbUnavailable, log_to_wandb

__all__ = [
    "SAMPLES_FILE",
    "GateReport",
    "InvalidResults",
    "RankingSection",
    "ResultsDocument",
    "RunInfo",
    "RunSummary",
    "WandbUnavailable",
    "allocate",
    "answered_by",
    "append_qa",
    "append_step_summary",
    "baseline_lines",
    "build_summary",
    "compare_runs",
    "detectable_line",
    "html_report_problem",
    "in_plan_order",
    "item_counts",
    "load_results",
    "log_to_wandb",
    "model_summary",
    "pass_at_k_by_dataset",
    "qa_record",
    "rank_items",
    "rank_runs",
    "ranking_lines",
    "ranking_section",
    "render_html",
    "render_markdown",
    "render_summary",
    "report_path",
    "requirement_of",
    "resumed_run",
    "run_detectable_difference",
    "run_models",
    "run_score",
    "sample_records",
    "scores_by_cluster",
    "scores_by_requirement",
    "section_ranking",
    "stratified_sample",
    "summarize_run",
    "validate_results",
    "version_items",
    "write_html",
    "write_markdown",
    "write_results",
    "write_samples",
]
