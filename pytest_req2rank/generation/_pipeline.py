"""Elaborating a drawn requirement with a generator model, calibrated in the sandbox.

One attempt runs the three stages (draft, adversarial self-review, structured
JSON); an answer that is not valid JSON is read from a fenced block, and one
that still cannot be used is asked for once more. The result is calibrated
(:func:`calibrate`) after a check against well-known benchmark problems. A
rejected attempt is regenerated with the reason, a bounded number of times;
then, or when the generator is unavailable, the offline template variant is used
and the provenance says why.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import Req2RankError
from ..models import COMPLEXITIES, ProjectRequirement, Usage
from ..providers import CompletionRequest, Message, Provider, ProviderError
from ._calibrate import Calibration, CalibrationPolicy, calibrate
from ._dedup import DuplicateMatch, NearDuplicateIndex, humaneval_index
from ._prompts import PROMPT_VERSION, REVIEW, draft_messages, retry_message, structure_message
from ._quality import ProbeGrader
from ._structured import ParseRoute, StructureError, read_answer

Stage = Literal["draft", "review", "structure", "structure-retry"]
Outcome = Literal["accepted", "invalid", "calibration", "duplicate", "provider_error"]


class StageOutput(BaseModel):
    model_config = ConfigDict(frozen=True)

    stage: Stage
    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    cost_usd: float | None = None
    calls: int = Field(default=1, description="Calls made, retries included; 0: a cache hit")
    latency_s: float = 0.0
    error: str | None = Field(default=None, description="Why the stage got no answer (its "
                              "calls still count)")


class Attempt(BaseModel):
    """One run of the three stages and what became of it."""

    model_config = ConfigDict(frozen=True)

    index: int
    stages: tuple[StageOutput, ...]
    parsed: ParseRoute | None = None
    outcome: Outcome
    reason: str = ""
    calibration: Calibration | None = None
    duplicate: DuplicateMatch | None = None


class Provenance(BaseModel):
    """Where a requirement came from: the generator, every attempt, and why it fell back."""

    model_config = ConfigDict(frozen=True)

    generator: str
    prompt_version: str = PROMPT_VERSION
    source: Literal["generated", "fallback"]
    attempts: tuple[Attempt, ...]
    fallback_reason: str | None = None


class Elaboration(BaseModel):
    """The requirement to benchmark, and its provenance (JSON-serializable, cacheable)."""

    model_config = ConfigDict(frozen=True)

    requirement: ProjectRequirement
    provenance: Provenance

    @property
    def fallback(self) -> bool:
        return self.provenance.source == "fallback"

    @property
    def usage(self) -> Usage:
        """What the generator's calls cost, over every stage of every attempt."""
        stages = [stage for attempt in self.provenance.attempts for stage in attempt.stages]
        return sum((Usage(calls=s.calls, retries=max(s.calls - 1, 0), prompt_tokens=s.prompt_tokens,
                          completion_tokens=s.completion_tokens,
                          reasoning_tokens=s.reasoning_tokens, cost_usd=s.cost_usd,
                          latency_s=s.latency_s) for s in stages), Usage())


class _Rejected(Req2RankError):
    def __init__(self, outcome: Outcome, reason: str) -> None:
        super().__init__(reason)
        self.outcome: Outcome = outcome
        self.reason = reason


def elaborate(
    requirement: ProjectRequirement,
    provider: Provider,
    grader: ProbeGrader,
    *,
    max_attempts: int = 3,
    policy: CalibrationPolicy | None = None,
    duplicates: NearDuplicateIndex | None = None,
) -> Elaboration:
    """Elaborate ``requirement`` (an offline template variant) with the generator ``provider``.

    Never raises for generator failures (they lead to the fallback); raises
    :class:`InfrastructureError` when the sandbox fails during calibration.
    ``duplicates`` defaults to the HumanEval index.
    """
    if max_attempts < 1:
        raise ValueError(f"max_attempts must be >= 1, got {max_attempts}")
    policy = policy or CalibrationPolicy()
    index = duplicates or humaneval_index()
    attempts: list[Attempt] = []
    reason: str | None = None
    for number in range(1, max_attempts + 1):
        run = _Run(requirement, provider, number)
        try:
            candidate = run.three_stages(reason, policy)
            run.duplicate = index.check(candidate)
            if run.duplicate.duplicate:
                raise _Rejected("duplicate", f"it is a near-duplicate of {run.duplicate.corpus} "
                                             f"problem {run.duplicate.problem} (similarity "
                                             f"{run.duplicate.similarity:.2f})")
            calibrated, calibration = calibrate(candidate, grader, policy)
            run.calibration = calibration
            if not calibration.accepted:
                raise _Rejected("calibration", calibration.reason)
        except _Rejected as rejected:
            attempts.append(run.record(rejected.outcome, rejected.reason))
            if rejected.outcome == "provider_error":
                return _fallback(requirement, provider, attempts,
                                 f"the generator failed: {rejected.reason}")
            reason = rejected.reason
            continue
        attempts.append(run.record("accepted", ""))
        return Elaboration(requirement=calibrated, provenance=Provenance(
            generator=provider.model, source="generated", attempts=tuple(attempts)))
    return _fallback(requirement, provider, attempts,
                     f"no acceptable requirement in {max_attempts} attempts; last: {reason}")


def _fallback(requirement: ProjectRequirement, provider: Provider, attempts: list[Attempt],
              reason: str) -> Elaboration:
    return Elaboration(requirement=requirement, provenance=Provenance(
        generator=provider.model, source="fallback", attempts=tuple(attempts),
        fallback_reason=f"{reason}; using the offline template variant"))


class _Run:
    """The conversation of one attempt."""

    def __init__(self, requirement: ProjectRequirement, provider: Provider, number: int) -> None:
        self.base = requirement
        self.provider = provider
        self.number = number
        self.stages: list[StageOutput] = []
        self.parsed: ParseRoute | None = None
        self.calibration: Calibration | None = None
        self.duplicate: DuplicateMatch | None = None
        level = COMPLEXITIES[requirement.metadata.complexity]
        self.max_tokens = max(8192, 2 * level.max_tokens)
        self.timeout_s = 2 * level.timeout_s

    def three_stages(self, rejected: str | None, policy: CalibrationPolicy) -> ProjectRequirement:
        messages = draft_messages(self.base, rejected=rejected)
        messages = self._ask(messages, "draft", json_mode=False)
        messages = self._ask([*messages, Message(role="user", content=REVIEW)], "review",
                             json_mode=False)
        ask = structure_message(self.base, min_tests=max(policy.min_probes + 2, 8))
        messages = self._ask([*messages, Message(role="user", content=ask)], "structure",
                             json_mode=True)
        try:
            candidate, self.parsed = read_answer(messages[-1].content, self.base)
            return candidate
        except StructureError as exc:
            messages = self._ask([*messages, Message(role="user", content=retry_message(exc.errors))],
                                 "structure-retry", json_mode=True)
        try:
            candidate, self.parsed = read_answer(messages[-1].content, self.base)
        except StructureError as exc:
            raise _Rejected("invalid", f"the structured answer is invalid twice: {exc}") from None
        return candidate

    def _ask(self, messages: list[Message], stage: Stage, *, json_mode: bool) -> list[Message]:
        request = CompletionRequest(
            messages=tuple(messages), max_tokens=self.max_tokens, timeout_s=self.timeout_s,
            temperature=0.7 if stage == "draft" else 0.2, seed=self.number, json_mode=json_mode,
            cache_tag=f"{PROMPT_VERSION}:{stage}:{self.number}",
        )
        try:
            completion = self.provider.complete(request)
        except ProviderError as exc:
            reason = f"{stage}: {exc.kind}: {exc.message}"
            self.stages.append(StageOutput(stage=stage, text="", calls=exc.attempts, error=reason))
            raise _Rejected("provider_error", reason) from None
        self.stages.append(StageOutput(stage=stage, text=completion.text,
                                       prompt_tokens=completion.prompt_tokens,
                                       completion_tokens=completion.completion_tokens,
                                       reasoning_tokens=completion.reasoning_tokens,
                                       cost_usd=completion.cost_usd, calls=completion.attempts,
                                       latency_s=completion.latency_s))
        return [*messages, Message(role="assistant", content=completion.text)]

    def record(self, outcome: Outcome, reason: str) -> Attempt:
        return Attempt(index=self.number, stages=tuple(self.stages), parsed=self.parsed,
                       outcome=outcome, reason=reason, calibration=self.calibration,
                       duplicate=self.duplicate)
