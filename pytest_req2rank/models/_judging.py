"""One judge's verdict on an item, and the panel's aggregated result."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ._usage import Usage


class JudgeVerdict(BaseModel):
    """What one judge said about one item; ``scores`` is ``None`` when the verdict was dropped."""

    model_config = ConfigDict(extra="forbid")

    judge: str = Field(
        description="Model string of the judge, e.g. 'r2r/static' or 'openai/gpt-4o'"
    )
    scores: dict[str, float] | None = Field(
        default=None, description="The five dimensions, clamped to 0-100; None when dropped"
    )
    overall: float | None = Field(default=None, description="This judge's weighted overall score")
    rationale: str = ""
    raw: str = Field(
        default="", description="The raw answer (the static judge: its findings as JSON)"
    )
    error: str | None = Field(default=None, description="Why the verdict was dropped")
    latency_s: float = 0.0
    usage: Usage = Field(default_factory=Usage)
    self_judging: bool = Field(
        default=False, description="The judge is of the target's model family"
    )

    @property
    def valid(self) -> bool:
        """True when the verdict counts (it has scores)."""
        return self.scores is not None


class PanelResult(BaseModel):
    """One item's panel score after the execution blend; no ``overall`` when judge_failed."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["scored", "judge_failed"]
    overall: float | None
    dimensions: dict[str, float] = Field(description="Final dimension scores, after the blend")
    judge_dimensions: dict[str, float] = Field(
        description="The panel's own scores, before the blend"
    )
    ci95: tuple[float, float] | None
    agreement: Literal["high", "moderate", "low"] | None
    sigma: float | None
    trimmed: bool = False
    warnings: list[str] = Field(default_factory=list)
    n_judges: int = Field(default=0, description="Judges whose verdict counted")
    execution_ratio: float | None = Field(
        default=None,
        description="Priority-weighted pass ratio (0-1) blended in; None: no test applied",
    )
    execution_weight: float = 0.7
