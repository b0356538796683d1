"""Prompting the target model, extracting its code, grading it."""

from ._extract import ENTRY_FILE, ExtractedCode, extract_code
from ._grading import grade, grade_probes
from ._pipeline import RunOptions, run_task
from ._prompts import build_messages, requirement_messages
from ._requirement import run_requirement

__all__ = [
    "ENTRY_FILE",
    "ExtractedCode",
    "RunOptions",
    "build_messages",
    "extract_code",
    "grade",
    "grade_probes",
    "requirement_messages",
    "run_requirement",
    "run_task",
]
