"""Fault-tolerance metrics of an N-version experiment, per fault pattern over tasks.

Pure functions over :class:`TaskOutcome` (one task under one pattern). The pinned
definitions (the papers disagree; these are ours):

- **FR** (failure rate) = 1 − tasks whose voted output is correct on every input / tasks.
  An input without a strict majority ("no consensus") has no voted output, so its task
  FAILS: no consensus counts as a failure, never as a pass or a skipped task.
- **MCR** (majority consensus rate) = tasks where a strict majority (> N/2) of the versions
  give identical output on every input / tasks. A version that fails (raises, times out) on
  any input agrees with no other.
- **CCR** (complete consensus rate) = tasks where all N versions give identical output on
  every input / tasks. CCR ≤ MCR always (all N is a strict majority of N).
- **TPR** (test pass rate) = the mean, over every version of every task, of the version's
  passed tests / tests (the task's own ``check`` tests, as grading decides them).
- **AFVR** (the IST paper's (fail_post − fail_pre)/N) = the mean over tasks of (versions
  failing a test after injection − versions failing a test before injection) / N.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ._voting import TaskVote


class TaskOutcome(BaseModel):
    """One task under one fault pattern: its vote, each version's test pass rate, and how
    many versions fail at least one test after (``failing``) and before (``failing_before``)
    the pattern's faults were injected."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    vote: TaskVote
    pass_rates: tuple[float, ...]
    failing: int = Field(ge=0)
    failing_before: int = Field(ge=0)

    @model_validator(mode="after")
    def _one_rate_per_version(self) -> TaskOutcome:
        n = self.vote.versions
        if len(self.pass_rates) != n or self.failing > n or self.failing_before > n:
            raise ValueError("pass rates and failing counts must describe the vote's versions")
        if any(not 0 <= rate <= 1 for rate in self.pass_rates):
            raise ValueError("a pass rate lies in [0, 1]")
        return self


class PatternMetrics(BaseModel):
    """The metrics of one pattern over its tasks (see the module for the definitions)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pattern: str
    tasks: int
    correct: int
    no_consensus: int
    """Tasks with an input that had no strict majority (all counted as failures in FR)."""
    fr: float
    mcr: float
    ccr: float
    tpr: float
    afvr: float


def failure_rate(outcomes: Sequence[TaskOutcome]) -> float:
    """FR: 1 − correct tasks / tasks; no consensus is a failure."""
    _need(outcomes)
    return 1 - sum(o.vote.correct for o in outcomes) / len(outcomes)


def majority_consensus_rate(outcomes: Sequence[TaskOutcome]) -> float:
    """MCR: tasks where a strict majority of versions agree on every input / tasks."""
    _need(outcomes)
    return sum(o.vote.majority_consensus for o in outcomes) / len(outcomes)


def complete_consensus_rate(outcomes: Sequence[TaskOutcome]) -> float:
    """CCR: tasks where all versions agree on every input / tasks."""
    _need(outcomes)
    return sum(o.vote.complete_consensus for o in outcomes) / len(outcomes)


def mean_test_pass_rate(outcomes: Sequence[TaskOutcome]) -> float:
    """TPR: the mean test pass rate over every version of every task."""
    _need(outcomes)
    return fmean(rate for o in outcomes for rate in o.pass_rates)


def added_failure_rate(outcomes: Sequence[TaskOutcome]) -> float:
    """AFVR: the mean over tasks of (failing versions after − before injection) / N."""
    _need(outcomes)
    return fmean((o.failing - o.failing_before) / o.vote.versions for o in outcomes)


def pattern_metrics(pattern: str, outcomes: Sequence[TaskOutcome]) -> PatternMetrics:
    """All the metrics of ``pattern`` over its tasks' ``outcomes``."""
    _need(outcomes)
    return PatternMetrics(
        pattern=pattern, tasks=len(outcomes), correct=sum(o.vote.correct for o in outcomes),
        no_consensus=sum(o.vote.no_consensus for o in outcomes),
        fr=failure_rate(outcomes), mcr=majority_consensus_rate(outcomes),
        ccr=complete_consensus_rate(outcomes), tpr=mean_test_pass_rate(outcomes),
        afvr=added_failure_rate(outcomes))


def _need(outcomes: Sequence[TaskOutcome]) -> None:
    if not outcomes:
        raise ValueError("a metric over no task is undefined")
