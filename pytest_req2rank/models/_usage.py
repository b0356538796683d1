"""Tokens, cost and latency of model calls."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Usage(BaseModel):
    """Tokens, cost and latency of the model calls made for one item.

    ``None`` means unknown (an offline model, or a provider without prices),
    never zero. ``reasoning_tokens`` are the part of ``completion_tokens`` a reasoning model
    spent thinking (providers bill them as output); ``None`` where the provider does not say.
    """

    model_config = ConfigDict(extra="forbid")

    calls: int = 0
    retries: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    cost_usd: float | None = None
    latency_s: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        def add(a: float | None, b: float | None) -> float | None:
            if a is None and b is None:
                return None
            return (a or 0) + (b or 0)

        return Usage(
            calls=self.calls + other.calls,
            retries=self.retries + other.retries,
            prompt_tokens=add(self.prompt_tokens, other.prompt_tokens),  # type: ignore[arg-type]
            completion_tokens=add(self.completion_tokens, other.completion_tokens),  # type: ignore[arg-type]
            reasoning_tokens=add(self.reasoning_tokens, other.reasoning_tokens),  # type: ignore[arg-type]
            cost_usd=add(self.cost_usd, other.cost_usd),
            latency_s=self.latency_s + other.latency_s,
        )
