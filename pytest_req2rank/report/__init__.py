"""Outputs of a run: results JSON (and its schema), terminal summary, Q&A log."""

from ._document import (
    SCHEMA_VERSION,
    ResultsDocument,
    RunInfo,
    RunSummary,
    ScoreInterval,
    Totals,
    generated_schema,
    results_schema,
    validate_results,
    write_results,
)
from ._qalog import append_qa, qa_record
from ._summary import build_summary
from ._terminal import render_summary

__all__ = [
    "SCHEMA_VERSION",
    "ResultsDocument",
    "RunInfo",
    "RunSummary",
    "ScoreInterval",
    "Totals",
    "append_qa",
    "build_summary",
    "generated_schema",
    "qa_record",
    "render_summary",
    "results_schema",
    "validate_results",
    "write_results",
]
