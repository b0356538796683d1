"""What one model takes, from LiteLLM's model information and parameter mapping: its output
limit, whether it takes a reasoning effort and a non-default temperature, and whether it
enforces a JSON Schema on its answer.

LiteLLM already renames parameters for each provider (``max_tokens`` becomes
``max_completion_tokens`` for OpenAI's o-series and gpt-5, ``max_output_tokens`` for Gemini,
``num_predict`` for Ollama) and maps ``reasoning_effort`` to each provider's own switch
(Anthropic's and DeepSeek's ``thinking``, Gemini's ``thinkingConfig``, Ollama's ``think``).
What it does silently under ``drop_params``, this module decides out loud: a temperature the
model refuses is not sent, a reasoning effort it cannot take stops the run at start, and the
output budget never exceeds the model's maximum.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from types import ModuleType
from typing import Any

from ..models import ReasoningEffort
from ._base import CompletionRequest, ProviderConfigError

SELF_HOSTED_PROVIDERS = frozenset({"hosted_vllm", "vllm", "ollama", "ollama_chat", "lm_studio",
                                   "llamafile"})
"""Servers that constrain decoding to a JSON Schema (vLLM, Ollama, LM Studio, llama.cpp's
llamafile), although LiteLLM has no model information to say so."""


@dataclass(frozen=True)
class Budget:
    """An output budget: ``asked`` for the answer, ``reasoning`` added for a model that thinks
    inside the same limit, and what is ``sent`` (``asked + reasoning`` capped at ``limit``)."""

    asked: int
    reasoning: int
    sent: int
    limit: int | None

    @property
    def capped(self) -> bool:
        return self.sent < self.asked + self.reasoning


class ModelParameters:
    """The parameter decisions for one LiteLLM model (``model`` as the user wrote it), made
    with the installed LiteLLM's model information and parameter mapping; cheap after the
    first use of each decision."""

    def __init__(self, litellm: ModuleType, model: str, *, api_base: str | None = None,
                 reasoning_effort: ReasoningEffort | None = None) -> None:
        self._litellm = litellm
        self.model = model
        self.api_base = api_base
        self.reasoning_effort = reasoning_effort
        self.name, self.provider, _, _ = litellm.get_llm_provider(model=model, api_base=api_base)
        self._temperature: dict[float, bool] = {}

    @cached_property
    def info(self) -> dict[str, Any]:
        """LiteLLM's model information (empty for a model it does not know)."""
        try:
            info = self._litellm.get_model_info(model=self.name, custom_llm_provider=self.provider)
        except Exception:  # noqa: BLE001 - litellm raises a bare Exception for unknown models
            return {}
        return dict(info) if info else {}

    @property
    def max_output_tokens(self) -> int | None:
        value = self.info.get("max_output_tokens")
        return value if isinstance(value, int) and value > 0 else None

    @property
    def custom(self) -> bool:
        """Served by a handler in ``litellm.custom_provider_map`` (e.g. the scripted fake)."""
        return any(item.get("provider") == self.provider
                   for item in self._litellm.custom_provider_map)

    @property
    def reasons(self) -> bool:
        """The model thinks before it answers: an effort other than ``none`` is asked, or
        LiteLLM says it reasons and it does so unasked (Claude thinks only when asked)."""
        if self.reasoning_effort is not None:
            return self.reasoning_effort != "none"
        return bool(self.info.get("supports_reasoning")) and "claude" not in self.name.lower()

    def _mapped(self, drop_params: bool, **params: Any) -> dict[str, Any]:
        from litellm.utils import get_optional_params  # litellm is loaded: self._litellm

        mapped: dict[str, Any] = get_optional_params(
            model=self.name, custom_llm_provider=self.provider, drop_params=drop_params,
            **params)
        return mapped

    def check_reasoning_effort(self) -> None:
        """Raise :class:`ProviderConfigError` when the model cannot take the asked effort: its
        provider has no such parameter in LiteLLM, or LiteLLM refuses the level for it. A custom
        handler takes one when its model information says the model reasons."""
        if self._effort_refusal is not None:
            raise ProviderConfigError(
                f"{self.model} does not take reasoning effort {self.reasoning_effort!r} through "
                f"LiteLLM ({self._effort_refusal}); leave --r2r-reasoning-effort out, pick "
                "another level, or benchmark a reasoning model (o3-mini, gpt-5, "
                "anthropic/claude-sonnet-4-…, deepseek/deepseek-reasoner, …)")

    @cached_property
    def _effort_refusal(self) -> str | None:
        effort = self.reasoning_effort
        if effort is None:
            return None
        if self.custom:
            return None if self.info.get("supports_reasoning") else (
                "its model information does not say it reasons (supports_reasoning)")
        try:
            self._mapped(False, reasoning_effort=effort)
        except Exception as exc:  # noqa: BLE001 - UnsupportedParamsError, BadRequestError, ValueError
            return _first_sentence(str(exc))
        return None

    @cached_property
    def thinking_budget(self) -> int | None:
        """The thinking budget LiteLLM sets for the effort (Anthropic's ``budget_tokens``,
        Gemini's ``thinkingBudget``); None where the provider takes no budget."""
        if self.reasoning_effort is None or self.custom:
            return None
        try:
            mapped = self._mapped(True, reasoning_effort=self.reasoning_effort)
        except Exception:  # noqa: BLE001 - refused efforts stop the run in check_reasoning_effort
            return None
        thinking, config = mapped.get("thinking"), mapped.get("thinkingConfig")
        for value in (thinking.get("budget_tokens") if isinstance(thinking, dict) else None,
                      config.get("thinkingBudget") if isinstance(config, dict) else None):
            if isinstance(value, int) and value >= 0:
                return value
        return None

    @cached_property
    def thinks_apart_from_temperature(self) -> bool:
        """Extended thinking is switched on (Anthropic, DeepSeek): the provider then refuses, or
        ignores, any temperature but its default."""
        if self.reasoning_effort in (None, "none") or self.custom:
            return False
        try:
            thinking = self._mapped(True, reasoning_effort=self.reasoning_effort).get("thinking")
        except Exception:  # noqa: BLE001 - as thinking_budget
            return False
        return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")

    def budget(self, max_tokens: int) -> Budget:
        """The output budget for an answer of ``max_tokens``: a model that reasons inside its
        output limit gets its thinking budget on top (LiteLLM's thinking budget for the effort;
        the medium one when no effort is asked), and the total never exceeds the model's
        maximum output tokens."""
        reasoning = 0
        if self.reasons:
            reasoning = self.thinking_budget if self.thinking_budget is not None else \
                default_thinking_budget(self.reasoning_effort or "medium")
        limit = self.max_output_tokens
        wanted = max_tokens + reasoning
        return Budget(asked=max_tokens, reasoning=reasoning,
                      sent=wanted if limit is None else min(wanted, limit), limit=limit)

    def takes_temperature(self, temperature: float) -> bool:
        """False when the model refuses ``temperature`` (OpenAI's o-series and gpt-5 take only
        their default, as LiteLLM's mapping says; extended thinking takes only 1)."""
        if temperature not in self._temperature:
            self._temperature[temperature] = self._decide_temperature(temperature)
        return self._temperature[temperature]

    def _decide_temperature(self, temperature: float) -> bool:
        if self.thinks_apart_from_temperature:
            return temperature == 1
        # gpt-5's rule depends on the effort; a custom handler is asked for no parameter it lacks.
        effort = ({"reasoning_effort": self.reasoning_effort} if self.reasoning_effort
                  and not self.custom and self._effort_refusal is None else {})
        try:
            self._mapped(False, temperature=temperature, **effort)
        except self._litellm.UnsupportedParamsError:
            return False
        except Exception:  # noqa: BLE001 - any other refusal is the call's to report
            return True
        return True

    @cached_property
    def enforces_schema(self) -> bool:
        """Whether to ask for structured output with a JSON Schema rather than JSON mode:
        LiteLLM's model information says the model supports it, or the model is served by a
        self-hosted OpenAI-compatible server (``openai/…`` with an api_base, vLLM, Ollama, LM
        Studio, llamafile), which constrains decoding to a schema and for which LiteLLM has no
        model information (LM Studio even refuses JSON mode)."""
        try:
            supported = self._litellm.supports_response_schema(
                model=self.name, custom_llm_provider=self.provider)
        except Exception:  # noqa: BLE001 - an unknown model: decided below
            supported = False
        if supported:
            return True
        if self.provider in SELF_HOSTED_PROVIDERS:
            return True
        return self.provider == "openai" and self.api_base is not None and not self.info

    def response_format(self, request: CompletionRequest) -> dict[str, Any] | None:
        """The ``response_format`` of ``request``: its answer schema where the model enforces
        one, else JSON mode when the request asks for JSON, else none."""
        schema = request.answer_schema
        if schema is not None and self.enforces_schema:
            return {"type": "json_schema", "json_schema": {
                "name": schema.name, "schema": schema.json_schema, "strict": schema.strict}}
        if schema is not None or request.json_mode:
            return {"type": "json_object"}
        return None

    def notes(self, budgets: set[int], temperature: float) -> list[str]:
        """What the run's header says about this model's parameters, for the answers'
        ``budgets`` and ``temperature``: reasoning effort, temperature withheld, budgets
        extended for reasoning or capped at the model's maximum."""
        notes = []
        if self.reasoning_effort is not None:
            notes.append(f"reasoning effort {self.reasoning_effort}")
        if not self.takes_temperature(temperature):
            thinking = " while it thinks" if self.thinks_apart_from_temperature else ""
            notes.append(f"temperature {temperature:g} not sent ({self.model} takes only its "
                         f"default{thinking})")
        planned = [self.budget(asked) for asked in sorted(budgets)]
        extra = {b.reasoning for b in planned if b.reasoning}
        if extra:
            notes.append(f"{'/'.join(str(n) for n in sorted(extra))} more output tokens for "
                         "reasoning")
        capped = [b for b in planned if b.capped]
        if capped:
            asked = ", ".join(str(b.asked + b.reasoning) for b in capped)
            notes.append(f"output budget {asked} capped at {self.model}'s maximum of "
                         f"{capped[0].limit} tokens")
        return notes


def default_thinking_budget(effort: ReasoningEffort) -> int:
    """LiteLLM's thinking budget for ``effort`` (its ``DEFAULT_REASONING_EFFORT_*`` constants,
    which the environment can override as in LiteLLM); 0 for ``none``."""
    if effort == "none":
        return 0
    from litellm import constants  # litellm is loaded whenever a model's parameters are decided

    value = getattr(constants, f"DEFAULT_REASONING_EFFORT_{effort.upper()}_THINKING_BUDGET", None)
    return value if isinstance(value, int) and value >= 0 else 0


def _first_sentence(message: str) -> str:
    """LiteLLM's error message, one line, without its class prefix or advice on drop_params."""
    text = message.strip().splitlines()[0] if message.strip() else "refused"
    text = text.split(": ", 1)[1] if text.startswith("litellm.") and ": " in text else text
    return text.split(" To drop", 1)[0].rstrip(" .")
