"""Structural validation of a template file against the shipped JSON Schema."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib.resources import files
from typing import Any

from jsonschema import Draft202012Validator, ValidationError

from ..models import field_path


@lru_cache(maxsize=1)
def template_schema() -> dict[str, Any]:
    """The template JSON Schema (``template.schema.json``, shipped with the package)."""
    text = files("pytest_req2rank.generation").joinpath("template.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    return Draft202012Validator(template_schema())


def _reason(error: ValidationError) -> str:
    message: str = error.message
    if error.validator == "oneOf" and error.path and error.path[0] == "probes":
        return "needs exactly one of 'expect', 'expect_expr' or 'raises'"
    if error.validator == "required":
        return message.replace("is a required property", "is missing")
    if error.validator == "enum":
        return f"{error.instance!r} is not one of {error.validator_value}"
    if error.validator in ("minItems", "minProperties"):
        return f"needs at least {error.validator_value} entr{'y' if error.validator_value == 1 else 'ies'}"
    if error.validator == "additionalProperties" and error.absolute_path:
        top = set(template_schema()["properties"])
        if any(key in top for key in error.instance if key not in error.schema.get("properties", {})):
            return message + " (in TOML, top-level keys must come before the first [table])"
    return message


def schema_errors(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(field path, reason) for every schema violation, in document order."""
    errors = sorted(_validator().iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    return [(field_path(e.absolute_path), _reason(e)) for e in errors]
