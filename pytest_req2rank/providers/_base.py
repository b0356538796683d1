"""The provider interface: one chat completion, with its usage, or a classified failure."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import ConfigurationError, Req2RankError
from ..models import Task, Usage
from ._reasoning import split_reasoning


class Message(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: str


class AnswerSchema(BaseModel):
    """The JSON Schema an answer must follow, sent as structured output where the provider
    enforces it (``response_format`` ``json_schema``; JSON mode elsewhere). ``name`` names it
    to the provider; ``strict`` asks for exact adherence (OpenAI's strict mode: every object
    closed with ``additionalProperties: false`` and every property required)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    json_schema: dict[str, Any]
    strict: bool = True


class CompletionRequest(BaseModel):
    """What to ask. ``task`` lets offline models (``r2r/…``) answer; remote models ignore it.

    ``answer_schema``: the answer is one JSON object following it (implies ``json_mode``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    messages: tuple[Message, ...]
    max_tokens: int | None = None
    temperature: float = 0.0
    seed: int | None = None
    timeout_s: float = 120.0
    json_mode: bool = False
    answer_schema: AnswerSchema | None = None
    task: Task | None = None
    cache_tag: str = Field(
        default="", description="Version of the prompt template; part of the response-cache key"
    )
    sample: int = Field(
        default=0, ge=0, description="Which sample of the task this asks for (0-based); part of "
        "the response-cache key, so sample k is never served another sample's answer"
    )


class Completion(BaseModel):
    """One answer and what it cost. Token counts and cost are ``None`` when unknown.

    ``text`` is the final answer, the only part anything reads or grades: building a
    Completion takes a reasoning model's inline reasoning out of the text it is given
    (:func:`~._reasoning.split_reasoning`) and adds it to ``reasoning``, which also holds what
    the provider returned as reasoning apart (LiteLLM's ``reasoning_content`` and thinking
    blocks). ``raw_text`` keeps the text as received when something was taken out of it.
    """

    model_config = ConfigDict(extra="forbid")

    text: str
    reasoning: str = Field(default="", description="The model's reasoning; never graded")
    raw_text: str | None = Field(
        default=None, description="The answer as received, when reasoning was taken out of it")
    reasoning_unfinished: bool = Field(
        default=False, description="The answer ended inside its reasoning: no final answer")
    model: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = Field(
        default=None, description="The part of completion_tokens spent reasoning, when reported")
    cost_usd: float | None = None
    latency_s: float = 0.0
    attempts: int = 1
    raw: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _final_answer(cls, data: Any) -> Any:
        # A completion read back (the response cache) has its raw_text key: split already.
        if not isinstance(data, dict) or "raw_text" in data or not isinstance(
                data.get("text"), str):
            return data
        split = split_reasoning(data["text"])
        if split.answer == data["text"]:
            return data
        given = str(data.get("reasoning") or "")
        return {**data, "text": split.answer, "raw_text": data["text"],
                "reasoning": "\n\n".join(part for part in (given, split.reasoning) if part),
                "reasoning_unfinished": split.unfinished}

    @property
    def cut(self) -> bool:
        """True when the answer was cut short: by the token limit (``finish_reason``
        ``length``), or inside its reasoning."""
        return self.raw.get("finish_reason") == "length" or self.reasoning_unfinished


class Embedding(BaseModel):
    """The embedding vectors of some texts (one per text, in order) and what they cost."""

    model_config = ConfigDict(extra="forbid")

    vectors: list[list[float]]
    model: str
    prompt_tokens: int | None = None
    cost_usd: float | None = None
    latency_s: float = 0.0
    attempts: int = 1

    @property
    def usage(self) -> Usage:
        return Usage(calls=self.attempts, retries=max(self.attempts - 1, 0),
                     prompt_tokens=self.prompt_tokens, cost_usd=self.cost_usd,
                     latency_s=self.latency_s)


FailureKind = Literal["api_error", "timeout"]

FailureCause = Literal[
    "credentials", "permission", "not_found", "quota", "unreachable",
    "bad_request", "context_window", "content_policy",
    "rate_limit", "transient", "timeout",
]
"""Why a call failed, as far as the provider's answer tells."""

PERMANENT_CAUSES: frozenset[FailureCause] = frozenset({
    "credentials", "permission", "not_found", "quota", "bad_request", "context_window",
    "content_policy",
})
"""Failures that no retry can mend: the call is not repeated."""

RUN_WIDE_CAUSES: frozenset[FailureCause] = frozenset({
    "credentials", "permission", "not_found", "quota",
})
"""Permanent failures of the model itself, not of one request: every later call fails too."""


class ProviderError(Req2RankError):
    """A call that failed after retries.

    ``kind`` is ``"timeout"`` when the provider timed out twice (the item is a
    ``timeout`` scored 0), else ``"api_error"`` (an
    infrastructure fault, not counted against the model). ``cause`` says why.
    """

    def __init__(self, kind: FailureKind, message: str, *, attempts: int = 1,
                 cause: FailureCause = "transient") -> None:
        super().__init__(message)
        self.kind: FailureKind = kind
        self.message = message
        self.attempts = attempts
        self.cause: FailureCause = cause

    @property
    def permanent(self) -> bool:
        """True when retrying cannot help (bad key, unknown model, exhausted quota, bad request)."""
        return self.cause in PERMANENT_CAUSES

    @property
    def run_wide(self) -> bool:
        """True when every later call of this model will fail the same way."""
        return self.cause in RUN_WIDE_CAUSES


PREFLIGHT_PROMPT = "req2rank preflight: reply with the single word ok"
"""The preflight's request to every model of a run (:func:`.preflight`), one user message;
the scripted fake recognises it (:mod:`.fake`)."""


class ProviderConfigError(ConfigurationError, ValueError):
    """A model string or provider setting that cannot work; message says how to fix it."""


class Provider(ABC):
    """A source of completions for one model string."""

    model: str

    @property
    def offline(self) -> bool:
        """True when no network or API key is involved."""
        return False

    @property
    def answer_parameters(self) -> dict[str, Any]:
        """What this provider sends with every request that shapes the answers (the target
        model's reasoning effort); part of the response-cache key."""
        return {}

    @abstractmethod
    def complete(self, request: CompletionRequest) -> Completion:
        """Return a completion, or raise :class:`ProviderError`."""

    async def acomplete(self, request: CompletionRequest) -> Completion:
        """:meth:`complete` for asyncio callers; providers with native async override it."""
        import asyncio  # loaded by whoever awaits this; a static run never does

        return await asyncio.to_thread(self.complete, request)

    def close(self) -> None:
        """Release resources (event loops, clients)."""


def usage_of(completion: Completion) -> Usage:
    """The usage of one completion; a cache hit (``attempts == 0``) made no call."""
    return Usage(
        calls=completion.attempts,
        retries=max(completion.attempts - 1, 0),
        prompt_tokens=completion.prompt_tokens,
        completion_tokens=completion.completion_tokens,
        reasoning_tokens=completion.reasoning_tokens,
        cost_usd=completion.cost_usd,
        latency_s=completion.latency_s,
    )
