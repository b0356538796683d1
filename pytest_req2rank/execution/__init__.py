"""Prompting the target model, extracting its code, grading it."""

from typing import TYPE_CHECKING, Any

from ._extract import ENTRY_FILE, ExtractedCode, defines, extract_code
from ._grading import REFERENCE_CACHE, grade, grade_probes
from ._pipeline import RunOptions, run_task
from ._prompts import build_messages, requirement_messages
from ._recording import ReferenceCache
from ._replay import TIMEOUT_FACTOR

if TYPE_CHECKING:
    from ._requirement import run_requirement


def __getattr__(name: str) -> Any:
    # The requirement path needs the generator's models; a static suite never loads them.
    if name == "run_requirement":
        from ._requirement import run_requirement

        return run_requirement
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
