"""What an N-version item adds to its result: which version or pattern it is, and for an
ensemble check, the experiment's record (faults, each version's grading, the vote)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ._usage import Usage

MeasureStatus = Literal["measured", "not_measured", "failed"]
"""``not_measured``: nothing to measure with (no judge, no embedding model); ``failed``: the
calls were made and gave no value (the reason says why)."""


class SDPResult(BaseModel):
    """SDP (semantic diversity proportion) of a task's N versions: 1 - (pairs judged the same
    approach) / (pairs judged). A pair whose call failed or whose answer could not be read is
    counted apart and is in neither sum; ``sdp`` is None when no pair was judged."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: MeasureStatus = "measured"
    judge: str | None = Field(default=None, description="The model that judged the pairs")
    sdp: float | None
    pairs: int = Field(description="C(N, 2)")
    judged: int = Field(description="Pairs with a verdict")
    same: int = Field(description="Pairs judged the same approach")
    parse_failures: int = Field(description="Pairs whose answer could not be read")
    call_failures: int = Field(default=0, description="Pairs whose call failed")
    reason: str | None = Field(default=None, description="Why it is not measured, or the "
                               "first failure")


class MBCSResult(BaseModel):
    """MBCS of a task's N versions: the mean pairwise cosine similarity of their code
    embeddings from a real embedding model; a failed call is an error here, never a value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: MeasureStatus
    model: str | None = Field(default=None, description="The embedding model")
    mbcs: float | None = None
    reason: str | None = Field(default=None, description="Why it is not measured, or the error")


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
    sdp: SDPResult | None = Field(
        default=None, description="Ensemble items: SDP from an LLM judge per pair of versions "
        "(absent in results written before it was recorded)")
    mbcs: MBCSResult | None = Field(
        default=None, description="Ensemble items: MBCS from an embedding model (absent in "
        "results written before it was recorded)")
    diversity_usage: Usage | None = Field(
        default=None, description="Ensemble items: the model calls made for SDP and MBCS by "
        "this item (a task's first ensemble check makes them; the others reuse the values)")
