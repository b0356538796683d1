"""The panel's members: ``--r2r-judges`` parsed, and each model string made a judge."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..providers import Provider, resolve_provider
from ..settings import STATIC_JUDGE
from ._case import Judge
from ._family import BUILTIN_PREFIX
from ._llm import LLMJudge
from ._static import StaticJudge

EXAMPLE = f"{STATIC_JUDGE},openai/gpt-4o,anthropic/claude-sonnet-4-5"


def parse_judges(value: str) -> tuple[str, ...]:
    """The judges' model strings of a comma-separated list; ``ValueError`` says what to fix."""
    items = [part.strip() for part in value.split(",")]
    if items == [""]:
        raise ValueError(f"needs at least one judge model, e.g. {EXAMPLE}")
    if any(not item for item in items):
        raise ValueError(
            f"expected comma-separated model strings without empty entries, got {value!r}"
        )
    spaced = next((item for item in items if any(c.isspace() for c in item)), None)
    if spaced is not None:
        raise ValueError(
            f"a model string must not contain whitespace, got {spaced!r}; "
            "separate judges with commas"
        )
    builtin = next((i for i in items if i.startswith(BUILTIN_PREFIX) and i != STATIC_JUDGE), None)
    if builtin is not None:
        raise ValueError(
            f"{builtin} cannot judge; the built-in judge is {STATIC_JUDGE}, "
            "any other judge is a LiteLLM model string"
        )
    duplicates = sorted({item for item in items if items.count(item) > 1})
    if duplicates:
        raise ValueError(f"lists {', '.join(duplicates)} more than once; name each judge once")
    return tuple(items)


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
