"""What an N-version item adds to its result: which version or pattern it is, and for an
ensemble check, the experiment's record (faults, each version's grading, the vote)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class NVersionRecord(BaseModel):
    """The N-version side of one item: a version (``role`` ``version``, its ``version``
    index) or an ensemble check of one fault pattern (``role`` ``ensemble``)."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["version", "ensemble"]
    task: str = Field(description="The task's N-version item id, 'nversion/TASK'")
    versions: int = Field(ge=1, description="N: the versions of the task")
    version: int | None = Field(default=None, ge=0, description="Version items: the index")
    implementation: str | None = Field(
        default=None, description="Version items of the built-in model: the library "
        "implementation answered (version k gets implementation k mod their count)")
    repeated: bool = Field(
        default=False, description="Version items of the built-in model: the implementation "
        "is a repeat (N exceeds the task's distinct implementations)")
    pattern: str | None = Field(default=None, description="Ensemble items: Pat-CL0 ... Pat-AL4")
    run: dict[str, Any] | None = Field(
        default=None, description="Ensemble items: the pattern's run (injection with faults "
        "and missing reasons, each version's grading, the voted outcome): nversion.PatternRun")
    inputs: int | None = Field(default=None, description="Ensemble items: inputs voted on")
    reference_raised: int | None = Field(
        default=None, description="Ensemble items: recorded inputs left out because the "
        "reference raised on them")
    diversity: dict[str, float] | None = Field(
        default=None, description="Ensemble items: the mean pairwise similarity of the N "
        "versions' code, by measure (levenshtein, codebleu-syntax-dataflow)")
