"""Prompting the target model, extracting its code, grading it."""

from ._answers import call_answers, recorded_inputs
from ._compare import values_match
from ._execute import SandboxFailed
from ._extract import extract_code
from ._grading import grade, grade_probes
from ._pipeline import RunOptions, run_task
from ._recording import ReferenceCache
from ._replay import Ungradable
from ._requirement import run_requirement
from ._sanitize import defines

__all__ = [
    "ReferenceCache",
    "RunOptions",
    "SandboxFailed",
    "Ungradable",
    "call_answers",
    "defines",
    "extract_code",
    "grade",
    "grade_probes",
    "recorded_inputs",
    "run_requirement",
    "run_task",
    "values_match",
]
