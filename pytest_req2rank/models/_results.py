"""Results of executing and of benchmarking one item: test outcomes, pass ratios,
timings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ._judging import JudgeVerdict, PanelResult
from ._nversion import NVersionRecord
from ._status import INFRA_STATUSES, Status, TestStatus
from ._usage import Usage


class TestOutcome(BaseModel):
    """Outcome of one hidden test case, decided on the host."""

    __test__ = False  # not a pytest test class, despite the name
    model_config = ConfigDict(extra="forbid")

    name: str
    status: TestStatus
    detail: str = ""
    input: str | None = None
    expected: str | None = None
    actual: str | None = None
    duration_s: float = 0.0


PRIORITY_WEIGHTS = {"must": 3.0, "should": 2.0, "nice": 1.0}
"""Weights of the probe priorities in the execution score (must counts three times nice)."""


def pass_ratio_by_priority(tests: Sequence[TestOutcome], priorities: Mapping[str, str]) -> dict[str, float]:
    """Pass ratio of the probes of each priority that has probes."""
    totals: dict[str, list[int]] = {}
    for test in tests:
        counts = totals.setdefault(priorities.get(test.name, "must"), [0, 0])
        counts[0] += test.status == "success"
        counts[1] += 1
    return {priority: passed / total for priority, (passed, total) in totals.items()}


def weighted_pass_ratio(
    by_priority: Mapping[str, float], tests: Sequence[TestOutcome], priorities: Mapping[str, str]
) -> float:
    """Each probe weighs :data:`PRIORITY_WEIGHTS` of its priority; 0 without probes."""
    weights = [PRIORITY_WEIGHTS[priorities.get(t.name, "must")] for t in tests]
    if not weights:
        return 0.0
    passed = sum(w for w, t in zip(weights, tests, strict=True) if t.status == "success")
    return passed / sum(weights)


class ExecutionResult(BaseModel):
    """What grading a piece of code against a task's tests produced."""

    model_config = ConfigDict(extra="forbid")

    status: Status
    tests: list[TestOutcome] = Field(default_factory=list)
    duration_s: float = Field(default=0.0, description="Total sandbox time (the 'judge time')")
    reason: str | None = Field(default=None, description="Why, when not success")
    sandbox: str = ""

    @property
    def passed(self) -> int:
        return sum(1 for t in self.tests if t.status == "success")

    @property
    def total(self) -> int:
        return len(self.tests)

    @property
    def pass_ratio(self) -> float:
        return self.passed / self.total if self.tests else 0.0


class Timings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    generation_s: float = 0.0
    execution_s: float = 0.0
    total_s: float = 0.0


class ItemResult(BaseModel):
    """Everything one benchmark item produced; travels from worker to controller."""

    model_config = ConfigDict(extra="forbid")

    item_id: str
    dataset: str
    task_id: str
    model: str
    status: Status
    reason: str | None = None
    pass_ratio: float = 0.0
    tests_passed: int = 0
    tests_total: int = 0
    tests: list[TestOutcome] = Field(default_factory=list)
    prompt: str = ""
    response: str = Field(default="", description="The model's final answer, reasoning left out")
    reasoning: str = Field(
        default="", description="The model's reasoning (returned apart, or taken out of its "
        "answer); kept for reading, never graded")
    raw_response: str | None = Field(
        default=None, description="The answer as received, when reasoning was taken out of it")
    finish_reason: str | None = Field(
        default=None, description="Why the answer ended, as the provider said ('length': cut by "
        "the token limit, also for an answer that ended inside its reasoning); None when unknown")
    code: dict[str, str] = Field(default_factory=dict)
    usage: Usage = Field(default_factory=Usage)
    timings: Timings = Field(default_factory=Timings)
    judge_time_s: float = Field(default=0.0, description="Sandbox time spent grading")
    sandbox: str = ""
    worker: str = "main"
    started_at: str = ""
    finished_at: str = ""
    kind: Literal["static", "dynamic"] = "static"
    score: float | None = Field(
        default=None,
        description="0-100: the panel's score when judged, else 100 x solved (static) or the "
        "priority-weighted pass ratio (dynamic); None when not scored (infrastructure "
        "error, or every judge failed)",
    )
    cluster: str = Field(
        default="", description="The requirement this item measures (bootstrap cluster, baseline "
        "pairing); the samples of a task share it"
    )
    sample: int | None = Field(
        default=None, ge=0, description="Which sample of its task this item is (0-based, item id "
        "'DATASET/TASK/sK'); None when the run asked once per task"
    )
    complexity: str | None = None
    requirement: dict[str, Any] | None = Field(
        default=None, description="Dynamic items: the requirement as shown to the model"
    )
    provenance: dict[str, Any] | None = Field(
        default=None, description="Dynamic items: how the requirement was made (generator, calibration)"
    )
    pass_ratio_by_priority: dict[str, float] = Field(
        default_factory=dict, description="Hidden-test pass ratio per priority (must/should/nice)"
    )
    generator_usage: Usage = Field(
        default_factory=Usage, description="Calls of the generator model elaborating the requirement"
    )
    judges: list[JudgeVerdict] = Field(
        default_factory=list, description="Every judge's verdict, dropped ones included"
    )
    panel: PanelResult | None = Field(
        default=None, description="The panel's score of the item; None when it was not judged"
    )
    nversion: NVersionRecord | None = Field(
        default=None, description="N-version items: the version or the ensemble check"
    )

    @property
    def accepted(self) -> bool:
        return self.status == "success"

    @property
    def test_failed(self) -> bool:
        """Whether this item's pytest test fails. An unsolved task fails; an N-version
        ensemble check is a measurement (its vote feeds the pattern's FR, MCR and CCR), so it
        fails only when the measurement could not be made: lost to infrastructure, or no
        pattern run recorded."""
        if self.nversion is not None and self.nversion.role == "ensemble":
            return self.status in INFRA_STATUSES or self.nversion.run is None
        return not self.accepted
