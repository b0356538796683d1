"""Reading a judge's answer: JSON, a fenced block or an embedded object, schema-checked."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from typing import Any

from jsonschema import Draft202012Validator, ValidationError

from ..errors import Req2RankError
from ..models import DIMENSIONS, field_path, validated_judge_scores

_FENCED_JSON = re.compile(r"```[ \t]*json[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)
MAX_OBJECT_STARTS = 200
"""How many ``{`` positions are tried when looking for an embedded object."""


class InvalidAnswer(Req2RankError, ValueError):
    """A judge answer that cannot be used; the message is one line saying why."""


@dataclass(frozen=True)
class JudgeAnswer:
    """A valid answer: the five scores, clamped to 0-100, and the rationale."""

    scores: dict[str, float]
    rationale: str


SCHEMA_FILE = "judge_answer.schema.json"


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    text = files("pytest_req2rank.judging").joinpath(SCHEMA_FILE).read_text("utf-8")
    return Draft202012Validator(json.loads(text))


def judge_answer_schema() -> dict[str, Any]:
    """The judge answer JSON Schema (``judge_answer.schema.json``, shipped with the package)."""
    schema: dict[str, Any] = _validator().schema
    return schema


def parse_judge_answer(text: str) -> JudgeAnswer:
    """The scores of an answer: the whole text as JSON, else the first ```json block, else the
    first balanced ``{...}`` object; raises :class:`InvalidAnswer`."""
    first_problem: str | None = None
    for candidate in json_candidates(text):
        problem = _problem(candidate)
        if problem is None:
            scores = candidate["scores"]
            try:
                checked = validated_judge_scores(
                    {d: float(scores[d]) for d in DIMENSIONS}, "scores"
                )
            except ValueError as exc:
                problem = str(exc)
            else:
                return JudgeAnswer(scores=checked, rationale=candidate.get("rationale", "").strip())
        first_problem = first_problem or problem
    if first_problem is not None:
        raise InvalidAnswer(first_problem)
    raise InvalidAnswer("not JSON: no JSON object, fenced ```json block or embedded {...} found")


def json_candidates(text: str) -> Iterator[Any]:
    try:
        yield json.loads(text)
    except json.JSONDecodeError:
        pass
    for block in _FENCED_JSON.findall(text):
        try:
            yield json.loads(block)
            break
        except json.JSONDecodeError:
            continue
    decoder = json.JSONDecoder()
    starts = [m.start() for m in re.finditer(r"\{", text)][:MAX_OBJECT_STARTS]
    for start in starts:
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            yield value
            return


def _problem(data: Any) -> str | None:
    if not isinstance(data, dict):
        return f"expected a JSON object, got a JSON {type(data).__name__}"
    error = next(iter(sorted(_validator().iter_errors(data), key=error_order)), None)
    return None if error is None else describe_error(error)


def error_order(error: ValidationError) -> tuple[int, list[str]]:
    return (len(error.absolute_path), [str(p) for p in error.absolute_path])


def describe_error(error: ValidationError) -> str:
    where = field_path(error.absolute_path)
    if error.validator == "required":
        missing = [d for d in error.validator_value if d not in error.instance]
        inside = "" if where == "<top>" else f" in {where}"
        return f"missing {', '.join(repr(m) for m in missing)}{inside}"
    if error.validator == "anyOf":
        return f"{where} is not a number: {error.instance!r}"
    return f"{where}: {error.message}"
