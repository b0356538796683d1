"""Answer schemas for structured output: a validation schema made fit for strict mode.

A schema the plugin validates answers with is lenient (extra keys allowed, optional
fields). Asked as structured output, OpenAI's strict mode takes only a closed form: every
object with ``additionalProperties: false`` and all its properties required, the root an
object, and a limited set of keywords. :func:`strict_answer_schema` derives that form; any
answer it admits is admitted by the lenient schema too, which still validates every answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._base import AnswerSchema

STRICT_KEYWORDS = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "anyOf", "enum",
    "const", "$ref", "$defs", "description", "title", "pattern", "format", "minimum",
    "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
})
"""The keywords OpenAI's strict structured output supports."""
_DROPPED = ("$schema", "$id")
"""Document metadata, meaningless to a provider."""


def strict_answer_schema(name: str, schema: Mapping[str, Any]) -> AnswerSchema:
    """``schema`` in strict-mode form, as the answer schema named ``name``; ``strict`` only
    when the result meets strict mode's rules (:func:`strict_mode_problems`)."""
    closed = _closed({key: value for key, value in schema.items() if key not in _DROPPED})
    return AnswerSchema(name=name, json_schema=closed, strict=not strict_mode_problems(closed))


def _closed(node: Any) -> Any:
    if isinstance(node, list):
        return [_closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    closed = {key: _closed(value) if key != "properties" else
              {name: _closed(sub) for name, sub in value.items()}
              for key, value in node.items()}
    if isinstance(closed.get("properties"), dict):
        closed["additionalProperties"] = False
        closed["required"] = list(closed["properties"])
    return closed


def strict_mode_problems(schema: Mapping[str, Any]) -> list[str]:
    """Where ``schema`` breaks OpenAI's strict-mode rules, one line each (none: it is fit)."""
    problems: list[str] = []
    if schema.get("type") != "object" or "anyOf" in schema:
        problems.append("<root>: must be a plain object schema")
    _check(schema, "<root>", problems)
    return problems


def _check(node: Any, where: str, problems: list[str]) -> None:
    if not isinstance(node, dict):
        return
    unknown = sorted(set(node) - STRICT_KEYWORDS)
    if unknown:
        problems.append(f"{where}: unsupported keyword(s) {', '.join(unknown)}")
    properties = node.get("properties")
    if isinstance(properties, dict):
        if node.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties must be false")
        missing = [name for name in properties if name not in node.get("required", ())]
        if missing:
            problems.append(f"{where}: every property must be required ({', '.join(missing)})")
        for name, sub in properties.items():
            _check(sub, f"{where}.{name}", problems)
    elif node.get("type") == "object":
        problems.append(f"{where}: an object needs its properties listed")
    _check(node.get("items"), f"{where}[]", problems)
    for index, sub in enumerate(node.get("anyOf") or ()):
        _check(sub, f"{where}|{index}", problems)
    for name, sub in (node.get("$defs") or {}).items():
        _check(sub, f"#/$defs/{name}", problems)
