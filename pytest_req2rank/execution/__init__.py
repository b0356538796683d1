"""Prompting the target model, extracting its code, grading it."""

from ._extract import defines, extract_code
from ._grading import grade, grade_probes
from ._pipeline import RunOptions, run_task
from ._recording import ReferenceCache
from ._requirement import run_requirement

__all__ = [
    "ReferenceCache",
    "RunOptions",
    "defines",
    "extract_code",
    "grade",
    "grade_probes",
    "run_requirement",
    "run_task",
]
