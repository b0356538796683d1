"""The generation pipeline's answers and their checks: JSON answers validated against their
shape, plans checked to hold no code, code answers extracted and compiled. A failed check
raises :class:`AnswerError` with a one-line reason the next prompt feeds back."""

from __future__ import annotations

import ast
import json
import re
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import Req2RankError
from ..execution import defines, extract_code
from ..models import Task

_FROZEN = ConfigDict(frozen=True, extra="ignore")
_JSON_FENCE = re.compile(r"```[ \t]*(?:json)?[ \t]*\n(.*?)```", re.DOTALL)
Answer = TypeVar("Answer", bound=BaseModel)


class AnswerError(Req2RankError, ValueError):
    """An answer that failed its check; the message says why, in one line."""


class Understanding(BaseModel):
    model_config = _FROZEN

    summary: str = Field(min_length=1)
    inputs: str = Field(min_length=1)
    outputs: str = Field(min_length=1)
    edge_cases: list[str] = Field(default_factory=list)
    family: str = Field(min_length=1)


class Thought(BaseModel):
    model_config = _FROZEN

    name: str = Field(min_length=1)
    paradigm: str = Field(min_length=1)
    idea: str = Field(min_length=1)


class Thoughts(BaseModel):
    model_config = _FROZEN

    thoughts: list[Thought] = Field(min_length=1)


class Solution(BaseModel):
    model_config = _FROZEN

    name: str = Field(min_length=1)
    data_structures: list[str] = Field(min_length=1)
    steps: list[str] = Field(min_length=1)


class Solutions(BaseModel):
    model_config = _FROZEN

    solutions: list[Solution] = Field(min_length=1)


def parse_json(text: str, shape: type[Answer]) -> Answer:
    """The JSON object of ``text`` (bare, or in a fenced block) validated as ``shape``."""
    candidate = text.strip()
    fenced = _JSON_FENCE.search(candidate)
    if not candidate.startswith("{") and fenced:
        candidate = fenced.group(1).strip()
    try:
        data = json.loads(candidate)
    except json.JSONDecodeError as exc:
        raise AnswerError(f"the answer is not JSON ({exc.msg} at line {exc.lineno} column "
                          f"{exc.colno}); answer with one JSON object only") from None
    try:
        return shape.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "the answer"
        raise AnswerError(f"the JSON does not have the asked shape: {where}: {first['msg']}"
                          ) from None


def code_lines(solution: Solution) -> list[str]:
    """The lines of a plan that are Python code (a plan describes, it does not implement)."""
    found = []
    for step in (solution.name, *solution.data_structures, *solution.steps):
        if "```" in step:
            found.append(step.strip())
            continue
        found += [line.strip() for line in step.splitlines() if _is_code(line.strip())]
    return found


def _is_code(line: str) -> bool:
    if not line or " " not in line.strip() and "(" not in line:
        return False  # one word is a name, not a program
    for source in (line, line + "\n    pass"):
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        body = tree.body
        return bool(body) and not all(isinstance(s, ast.Expr) and isinstance(
            s.value, ast.Name | ast.Constant) for s in body)
    return False


def parse_code(text: str, task: Task) -> str:
    """The program of a code answer: extracted, compiling, defining the task's function."""
    extracted = extract_code(text, entry_point=task.entry_point, prompt=task.prompt)
    if extracted is None:
        raise AnswerError("the answer holds no code; answer with one ```python fenced block")
    code = extracted.files.get("solution.py", "")
    try:
        compile(code, "solution.py", "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise AnswerError(f"the code does not compile: line {exc.lineno}: {exc.msg}") from None
    except (ValueError, MemoryError, RecursionError, OverflowError) as exc:
        raise AnswerError(f"the code does not compile: {type(exc).__name__}") from None
    entry = task.entry_point
    if task.form == "function" and entry and not defines(code, entry):
        raise AnswerError(f"the code does not define the function {entry}(); define it "
                          "with the task's signature")
    return code
