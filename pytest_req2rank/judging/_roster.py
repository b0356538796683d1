"""The panel's members: each judge model string made a judge."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..models import STATIC_JUDGE
from ..providers import Provider, resolve_provider
from ._case import Judge
from ._llm import LLMJudge
from ._static import StaticJudge


def build_judges(
    models: Sequence[str],
    *,
    provider: Callable[[str], Provider] = resolve_provider,
    seed: int | None = None,
    timeout_s: float = 120.0,
    max_tokens: int = 2048,
    weights: Mapping[str, float] | None = None,
) -> list[Judge]:
    """One judge per model string: :class:`StaticJudge` for ``r2r/static``, else an
    :class:`LLMJudge` over ``provider(model)`` (e.g. a factory that adds the response cache)."""
    return [
        StaticJudge()
        if model == STATIC_JUDGE
        else LLMJudge(
            provider(model), seed=seed, timeout_s=timeout_s, max_tokens=max_tokens, weights=weights
        )
        for model in models
    ]
