"""What a judge is shown about one item, and the judge interface."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..models import (
    DIMENSIONS,
    ExecutionResult,
    Guidance,
    ItemResult,
    JudgeVerdict,
    Priority,
    ProjectRequirement,
    dimension_weights,
)
from ..scoring import round_half_up
from ._evidence import execution_ratio


@dataclass(frozen=True)
class JudgeCase:
    """One item as the judges see it.

    ``requirement`` is the text the target saw; ``guidance`` the evaluation
    guidance (key differentiators, pitfalls, edge cases; ``""`` for static
    suites); ``execution_ratio`` the priority-weighted hidden-test pass ratio
    (0-1, ``None`` when no test applied); ``priorities`` maps test names to
    their priority (tests not listed count as ``must``).
    """

    requirement: str
    guidance: str
    files: dict[str, str]
    execution: ExecutionResult | None
    execution_ratio: float | None
    target_model: str
    priorities: Mapping[str, Priority] = field(default_factory=dict)

    @classmethod
    def from_item(
        cls, item: ItemResult, requirement: ProjectRequirement | None = None
    ) -> JudgeCase:
        """The case of a finished item; ``requirement`` (dynamic items) adds guidance and
        priorities."""
        priorities: dict[str, Priority] = (
            {probe.name: probe.priority for probe in requirement.probes} if requirement else {}
        )
        execution = ExecutionResult(
            status=item.status,
            tests=item.tests,
            reason=item.reason,
            duration_s=item.judge_time_s,
            sandbox=item.sandbox,
        )
        return cls(
            requirement=item.prompt,
            guidance=guidance_text(requirement.guidance) if requirement else "",
            files=dict(item.code),
            execution=execution,
            execution_ratio=execution_ratio(execution, priorities),
            target_model=item.model,
            priorities=priorities,
        )


def guidance_text(guidance: Guidance) -> str:
    """A requirement's evaluation guidance as the bulleted text judges read."""
    sections = (
        ("Key differentiators", guidance.differentiators),
        ("Common pitfalls", guidance.pitfalls),
        ("Edge cases", guidance.edge_cases),
    )
    return "\n\n".join(
        f"{title}:\n" + "\n".join(f"- {line}" for line in lines)
        for title, lines in sections
        if lines
    )


def weighted_overall(
    scores: Mapping[str, float], weights: Mapping[str, float] | None = None
) -> float:
    """One judge's overall score: the weighted sum of its five scores, rounded like the panel's."""
    weight = dimension_weights(weights)
    return round_half_up(math.fsum(scores[d] * weight[d] for d in DIMENSIONS))


class Judge(ABC):
    """Scores one item on the five dimensions, on its own."""

    name: str

    @property
    def offline(self) -> bool:
        """True when this judge waits on no network (an LLM judge says what its model does)."""
        return True

    @abstractmethod
    def judge(self, case: JudgeCase) -> JudgeVerdict:
        """This judge's verdict; a failure is a verdict with ``error`` set, never an exception."""

    def close(self) -> None:
        """Release what the judge holds (a provider's connections); nothing by default."""
