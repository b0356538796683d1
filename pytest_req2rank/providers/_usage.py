"""Reading a litellm response: the answer text, its reasoning, token counts and cost (``None``
when unknown)."""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any


def response_text(response: Any) -> str:
    """The first choice's message content; an answer without content is the empty string."""
    choices = getattr(response, "choices", None) or []
    if not choices:
        return ""
    message = getattr(choices[0], "message", None)
    content = getattr(message, "content", None)
    return content if isinstance(content, str) else ""


def response_reasoning(response: Any) -> str:
    """The reasoning the provider returned apart from the answer: the first choice's
    ``reasoning_content``, else the text of its thinking blocks (Anthropic); ``""`` when none."""
    choices = getattr(response, "choices", None) or []
    message = getattr(choices[0], "message", None) if choices else None
    content = getattr(message, "reasoning_content", None)
    if isinstance(content, str) and content.strip():
        return content.strip()
    blocks = getattr(message, "thinking_blocks", None) or []
    parts = [block.get("thinking") for block in blocks if isinstance(block, dict)]
    return "\n\n".join(part.strip() for part in parts if isinstance(part, str) and part.strip())


def response_vectors(response: Any) -> list[list[float]]:
    """The vectors of an embedding response, in input order (``data[k].index``, else the
    order given); an entry that is not a list of numbers is left out."""
    data = getattr(response, "data", None) or []
    rows: list[tuple[int, list[float]]] = []
    for position, entry in enumerate(data):
        get = entry.get if isinstance(entry, dict) else lambda key, e=entry: getattr(e, key, None)
        vector, index = get("embedding"), get("index")
        if isinstance(vector, list) and all(
                isinstance(x, int | float) and not isinstance(x, bool) for x in vector):
            rows.append((index if isinstance(index, int) else position,
                         [float(x) for x in vector]))
    return [vector for _, vector in sorted(rows, key=lambda row: row[0])]


def token_counts(response: Any) -> tuple[int | None, int | None]:
    """Prompt and completion tokens as reported; a missing or all-zero usage is unknown."""
    usage = getattr(response, "usage", None)
    if usage is None:
        return None, None
    prompt = _count(getattr(usage, "prompt_tokens", None))
    completion = _count(getattr(usage, "completion_tokens", None))
    if not prompt and not completion:
        return None, None
    return prompt, completion


def reasoning_token_count(response: Any) -> int | None:
    """The completion tokens spent reasoning (``usage.completion_tokens_details
    .reasoning_tokens``, where LiteLLM puts every provider's count); ``None`` when not reported.
    They are part of ``completion_tokens`` and of the cost LiteLLM computes."""
    usage = getattr(response, "usage", None)
    details = getattr(usage, "completion_tokens_details", None)
    if isinstance(details, dict):
        return _count(details.get("reasoning_tokens"))
    return _count(getattr(details, "reasoning_tokens", None))


def _count(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def response_cost(litellm: ModuleType, response: Any, model: str) -> float | None:
    """Cost in USD from litellm's price map; an unknown price, or a price of 0, is ``None``."""
    hidden = getattr(response, "_hidden_params", None) or {}
    cost = _positive(hidden.get("response_cost"))
    if cost is not None:
        return cost
    try:
        return _positive(litellm.completion_cost(completion_response=response, model=model))
    except Exception:  # noqa: BLE001 - litellm raises a bare Exception for unpriced models
        return None


def _positive(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
        if math.isfinite(number) and number > 0:
            return number
    return None
