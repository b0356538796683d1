"""Prompting the target model, extracting its code, grading it."""

from ._extract import ENTRY_FILE, ExtractedCode, defines, extract_code
from ._grading import REFERENCE_CACHE, grade, grade_probes
from ._pipeline import RunOptions, run_task
from ._prompts import build_messages, requirement_messages
from ._recording import ReferenceCache
from ._replay import TIMEOUT_FACTOR
from ._requirement import run_requirement

__all__ = [
    "ENTRY_FILE",
    "REFERENCE_CACHE",
    "TIMEOUT_FACTOR",
    "ExtractedCode",
    "ReferenceCache",
    "RunOptions",
    "build_messages",
    "defines",
    "extract_code",
    "grade",
    "grade_probes",
    "requirement_messages",
    "run_requirement",
    "run_task",
]
