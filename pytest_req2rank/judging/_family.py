"""Model families: is a judge grading its own kind (self-preference bias)?"""

from __future__ import annotations

import re

from ..models import BUILTIN_PREFIX

# Bedrock ids: optional region, vendor, then the model ("us.anthropic.claude-…").
_REGION = re.compile(r"^(?:us|eu|apac|global)\.")
_VENDOR = re.compile(
    r"^(?:anthropic|meta|amazon|mistral|cohere|ai21|deepseek|qwen|openai|google)\."
)

FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (family, re.compile(pattern))
    for family, pattern in (
        ("openai", r"^(?:gpt|chatgpt|o\d+(?:$|[-.:_])|codex|davinci|text-davinci)"),
        ("claude", r"^(?:claude|anthropic)"),
        ("gemini", r"^(?:gemini|gemma|palm|chat-bison|codechat-bison)"),
        ("llama", r"^(?:llama|codellama|meta-llama)"),
        ("mistral", r"^(?:mistral|mixtral|codestral|devstral|magistral|ministral|pixtral)"),
        ("qwen", r"^(?:qwen|qwq)"),
        ("deepseek", r"^deepseek"),
        ("grok", r"^grok"),
        ("command", r"^(?:command|cohere)"),
        ("phi", r"^phi-?\d"),
        ("glm", r"^(?:glm|chatglm)"),
        ("kimi", r"^(?:kimi|moonshot)"),
        ("nova", r"^(?:nova|titan)"),
        ("granite", r"^granite"),
    )
)


def base_name(model: str) -> str:
    """The model's own name, lower-cased, without provider routes or vendor prefixes."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    return _VENDOR.sub("", _REGION.sub("", name))


def family(model: str) -> str | None:
    """The known family of a model (``openai``, ``claude``, ``gemini``, …), else ``None``."""
    name = base_name(model)
    return next((key for key, pattern in FAMILIES if pattern.match(name)), None)


def same_family(target: str, judge: str) -> bool:
    """True when ``judge`` belongs to the model family of ``target``.

    Provider routes (``openai/``, ``openrouter/…/``, ``bedrock/``, …) are
    ignored; known families are compared by family, unknown names by their
    base name before the first ``-`` or ``:``. Built-ins (``r2r/…``) are never
    of any family.
    """
    if target.strip().startswith(BUILTIN_PREFIX) or judge.strip().startswith(BUILTIN_PREFIX):
        return False
    target_family, judge_family = family(target), family(judge)
    if target_family is not None or judge_family is not None:
        return target_family == judge_family
    return _stem(target) == _stem(judge)


def _stem(model: str) -> str:
    return re.split(r"[-:]", base_name(model), maxsplit=1)[0]
