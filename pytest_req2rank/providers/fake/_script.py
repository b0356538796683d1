"""The fake provider's script: per model, ordered rules, each with the responses it gives in turn."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ...errors import ConfigurationError
from ...models import FAKE_PREFIX

SCRIPT_ENV = "R2R_FAKE_SCRIPT"
LOG_ENV = "R2R_FAKE_LOG"
FAKE_PROVIDER = FAKE_PREFIX.removesuffix("/")
"""The provider name the fake is registered under in litellm."""

ErrorName = Literal[
    "rate_limit", "timeout", "server_error", "service_unavailable", "connection",
    "auth", "bad_request", "not_found", "context_window", "content_policy",
    "missing_key", "permission", "quota", "unreachable",
]


class FakeScriptError(ConfigurationError, ValueError):
    """A script that cannot be used; the message says where and what is wrong."""


class ScriptedUsage(BaseModel):
    """Token counts of a response; ``reasoning_tokens`` (part of ``completion_tokens``) are
    reported as ``usage.completion_tokens_details.reasoning_tokens``, as reasoning models do."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt_tokens: int = Field(ge=0)
    completion_tokens: int = Field(ge=0)
    reasoning_tokens: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _reasoning_within_completion(self) -> ScriptedUsage:
        if self.reasoning_tokens is not None and self.reasoning_tokens > self.completion_tokens:
            raise ValueError('"reasoning_tokens" are part of "completion_tokens": at most as many')
        return self

    def response_usage(self) -> dict[str, Any]:
        """The ``usage`` of a chat completion response."""
        usage: dict[str, Any] = {
            "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens}
        if self.reasoning_tokens is not None:
            usage["completion_tokens_details"] = {"reasoning_tokens": self.reasoning_tokens}
        return usage


FinishReason = Literal["stop", "length", "content_filter"]


class Step(BaseModel):
    """One response: a ``text`` answer, an ``embedding`` vector (an embedding call's answer to
    one input) or an ``error``; ``delay_s`` holds the call that long first. A ``text`` answer
    ends with ``finish_reason`` and may carry ``reasoning`` returned apart from it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str | None = None
    finish_reason: FinishReason = "stop"
    reasoning: str | None = None
    embedding: tuple[float, ...] | None = None
    error: ErrorName | None = None
    usage: ScriptedUsage | None = None
    retry_after: float | None = Field(default=None, ge=0)
    delay_s: float = Field(default=0.0, ge=0, le=60)

    @model_validator(mode="after")
    def _one_outcome(self) -> Step:
        if sum(value is not None for value in (self.text, self.embedding, self.error)) != 1:
            raise ValueError('a response needs exactly one of "text", "embedding" or "error"')
        if self.retry_after is not None and self.error is None:
            raise ValueError('"retry_after" only applies to an "error" response')
        if self.text is None and (self.reasoning is not None or self.finish_reason != "stop"):
            raise ValueError('"finish_reason" and "reasoning" only apply to a "text" response')
        return self

    @property
    def outcome(self) -> str:
        if self.error is not None:
            return self.error
        return "text" if self.text is not None else "embedding"


class Rule(BaseModel):
    """Answers calls whose last user message matches ``match`` (a regex; absent matches all)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    match: str | None = None
    responses: tuple[Step, ...] = Field(min_length=1)

    @field_validator("match")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a valid regular expression: {exc}") from None
        return value

    def matches(self, text: str) -> bool:
        return self.match is None or re.search(self.match, text) is not None


class Price(BaseModel):
    """USD per token, registered with litellm's price map for ``fake/<name>``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_cost_per_token: float = Field(ge=0)
    output_cost_per_token: float = Field(ge=0)


class ModelInfo(BaseModel):
    """What LiteLLM's model information says of a fake model (registered with its price):
    its maximum output tokens, whether it reasons (then it takes a reasoning effort), and
    whether it enforces a JSON Schema on its answer."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_output_tokens: int | None = Field(default=None, ge=1)
    supports_reasoning: bool = False
    supports_response_schema: bool = False


class FakeScript(BaseModel):
    """``models``: model name (``coder`` serves ``fake/coder``) → rules; ``prices``: name → Price;
    ``info``: name → ModelInfo."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    models: dict[str, tuple[Rule, ...]]
    prices: dict[str, Price] = Field(default_factory=dict)
    info: dict[str, ModelInfo] = Field(default_factory=dict)

    @field_validator("models", "prices", "info", mode="before")
    @classmethod
    def _bare_names(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            return {str(k).removeprefix(FAKE_PREFIX): v for k, v in value.items()}
        return value

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:16]

    def choose(self, name: str, text: str, *, explicit: bool = False) -> int | None:
        """The index of the first rule of model ``name`` matching ``text``, if any; with
        ``explicit``, only a rule with a ``match`` counts."""
        for index, rule in enumerate(self.models.get(name, ())):
            if (rule.match is not None or not explicit) and rule.matches(text):
                return index
        return None


def parse_script(data: Any, *, source: str = "script") -> FakeScript:
    """Validate a script given as plain data; raise FakeScriptError naming the bad field."""
    if isinstance(data, FakeScript):
        return data
    try:
        return FakeScript.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise FakeScriptError(
            f"{source}: {where}: {first['msg']} ({exc.error_count()} problem(s)); "
            'expected {"models": {"<name>": [{"match": "<regex>", "responses": [{"text": "..."}]}]}}'
        ) from None


def load_script(path: Path) -> FakeScript:
    """Read and validate a script file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FakeScriptError(f"{SCRIPT_ENV}={path}: file not found") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FakeScriptError(f"{SCRIPT_ENV}={path}: cannot read a JSON script ({exc})") from None
    return parse_script(data, source=f"{SCRIPT_ENV}={path}")


def write_fake_script(path: str | Path, script: Mapping[str, Any] | FakeScript,
                      *, log_path: str | Path | None = None) -> dict[str, str]:
    """Validate ``script``, write it to ``path`` and return the environment variables to set.

    The call log defaults to ``<path stem>.calls.jsonl`` next to the script.
    """
    path = Path(path)
    parsed = parse_script(script)
    path.write_text(parsed.model_dump_json(indent=2, exclude_defaults=True), encoding="utf-8")
    log = Path(log_path) if log_path is not None else path.with_name(f"{path.stem}.calls.jsonl")
    return {SCRIPT_ENV: str(path), LOG_ENV: str(log)}
