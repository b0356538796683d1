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
    generation: GenerationRecord | None = Field(
        default=None, description="Version items of a generation pipeline: the task's state "
        "machine record (transitions, retries, rollbacks, repairs, tokens, cost)")
    lineage: VersionLineage | None = Field(
        default=None, description="Version items of a generation pipeline: this version's "
        "origin (idea, IRQN decisions, repairs)")


class GenerationConfig(BaseModel):
    """The parameters of the N-version generation pipeline (a remote model's versions):
    its state machine's bounds, the HILE counts and IRQN's thresholds and probabilities.
    A HILE count of None is derived from N (:meth:`counts`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    method: Literal["pipeline", "plain"] = Field(
        default="pipeline", description="pipeline: the state machine; plain: one plain "
        "prompt per version (a baseline)")
    retries: int = Field(default=3, ge=0, le=20, description="Retries of one prompt whose "
                         "answer fails its check (the error is fed back), then the error end")
    rollbacks: int = Field(default=2, ge=0, le=20, description="Rollbacks to an earlier "
                           "state per task, after which the pipeline goes on with what it has")
    repairs: int = Field(default=3, ge=0, le=20, description="K: test-driven repair "
                         "iterations of a failing version")
    thoughts: int | None = Field(default=None, ge=1, le=20, description="HILE: distinct "
                                 "algorithmic ideas; None: N")
    solutions: int = Field(default=2, ge=1, le=10, description="HILE: plans per idea")
    implementations: int = Field(default=1, ge=1, le=10, description="HILE: code per plan")
    theta_diff: float = Field(default=0.3, ge=0, le=1, description="IRQN: below it, retain")
    theta_ident: float = Field(default=0.7, ge=0, le=1, description="IRQN: above it, negate")
    p_qn1: float = Field(default=0.7, ge=0, le=1, description="IRQN: chance an output is "
                         "judged (else accepted as it is)")
    p_qn2: float = Field(default=0.3, ge=0, le=1, description="IRQN: chance a retained "
                         "output is negated anyway")
    irqn_iterations: int = Field(default=5, ge=1, le=20, description="IRQN: J, iterations")

    def thoughts_for(self, n: int) -> int:
        """The thought-level count of a run with ``n`` versions."""
        return self.thoughts if self.thoughts is not None else n

    def max_calls(self, n: int) -> int:
        """The most model calls the pipeline makes for one task of ``n`` versions: each
        round (the first, and one per rollback) asks for the understanding, the ideas, the
        plans, the programs, IRQN's regenerations and the repairs, each prompt retried at
        most ``retries`` times."""
        thoughts = self.thoughts_for(n)
        programs = thoughts * self.solutions * self.implementations
        prompts = (2 + thoughts + programs * (1 + self.irqn_iterations)
                   + programs * (1 + self.irqn_iterations) * self.repairs)
        return prompts * (1 + self.retries) * (1 + self.rollbacks)


class TransitionRecord(BaseModel):
    """One step of the generation state machine: from where to where, by which action and
    why, and the calls, tokens, cost and time spent since the step before."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(description="The state left (understanding ... collection)")
    target: str = Field(description="The state entered (the same one for a retry; error, "
                        "complete)")
    action: Literal["transition", "retry", "rollback", "error"]
    reason: str
    calls: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    seconds: float = 0.0


class GenerationRecord(BaseModel):
    """How a remote model's N versions of one task were generated (the same record on each
    of the task's version items): the state machine's path and what it cost."""

    model_config = ConfigDict(extra="forbid")

    end: Literal["complete", "error"]
    reason: str | None = Field(default=None, description="Why it ended in error")
    family: str | None = Field(default=None, description="The knowledge base's problem family")
    knowledge_version: int | None = None
    transitions: list[TransitionRecord] = Field(default_factory=list)
    retries: int = 0
    rollbacks: int = 0
    candidates: int = Field(default=0, description="Implementations the model wrote")
    irqn: dict[str, int] = Field(default_factory=dict, description="IRQN decisions: "
                                 "unjudged, retain, question, negate")
    repair_iterations: int = Field(default=0, description="Repair prompts over all candidates")
    calls: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    seconds: float = 0.0
    config: GenerationConfig = Field(default_factory=GenerationConfig)


class VersionLineage(BaseModel):
    """Where one generated version came from and what happened to it."""

    model_config = ConfigDict(extra="forbid")

    candidate: str = Field(description="t<thought>.s<solution>.i<implementation>, with "
                           "+q/+n per IRQN question/negation")
    thought: str = Field(description="The algorithmic idea's name")
    irqn: list[str] = Field(default_factory=list, description="Its IRQN decisions, in order")
    irqn_accepted: bool = Field(default=True, description="False: still pending after J "
                                "iterations, taken because accepted ones were too few")
    repairs: int = Field(default=0, description="Repair iterations it went through")
    repaired: bool = Field(default=False, description="Passing only after repair")
    passed: bool = False


NVersionRecord.model_rebuild()  # its generation fields name the models defined after it
