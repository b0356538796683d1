"""The generator's structured answer: JSON (or a fenced block), schema-checked, made a requirement."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib.resources import files
from typing import Any, Literal

from jsonschema import Draft202012Validator

from ..errors import Req2RankError
from ..models import (
    FunctionalRequirement,
    Guidance,
    Interface,
    Priority,
    Probe,
    ProjectRequirement,
    field_path,
)

ParseRoute = Literal["json", "fenced"]
_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n(.*?)```", re.DOTALL)
_PRIORITY: dict[str, Priority] = {"must": "must", "should": "should", "nice-to-have": "nice"}


class StructureError(Req2RankError, ValueError):
    """The answer is not a valid ProjectRequirement; ``errors`` holds one line per problem."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


@lru_cache(maxsize=1)
def requirement_schema() -> dict[str, Any]:
    """The ProjectRequirement JSON Schema (``project_requirement.schema.json``, shipped)."""
    text = (files("pytest_req2rank.generation")
            .joinpath("project_requirement.schema.json").read_text("utf-8"))
    schema: dict[str, Any] = json.loads(text)
    return schema


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    return Draft202012Validator(requirement_schema())


def parse_answer(text: str) -> tuple[dict[str, Any], ParseRoute]:
    """The JSON object of an answer: the whole text, else the first fenced block that parses."""
    try:
        data = json.loads(text)
        route: ParseRoute = "json"
    except json.JSONDecodeError as exc:
        data = None
        error = f"the answer is not JSON ({exc.msg} at line {exc.lineno})"
        route = "fenced"
        for block in _FENCE.findall(text):
            try:
                data = json.loads(block)
                break
            except json.JSONDecodeError:
                continue
        if data is None:
            raise StructureError([error + " and holds no fenced JSON block"]) from None
    if not isinstance(data, dict):
        raise StructureError([f"the answer is a JSON {type(data).__name__}, not an object"])
    return data, route


def schema_problems(data: dict[str, Any]) -> list[str]:
    """One ``field: reason`` line per schema violation and per duplicate id or name."""
    errors = sorted(_validator().iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    problems = [f"{field_path(e.absolute_path)}: {e.message}" for e in errors]
    if problems:
        return problems
    for key, label in (("functionalRequirements", "id"), ("hiddenTests", "name")):
        seen: set[str] = set()
        for i, entry in enumerate(data[key]):
            if entry[label] in seen:
                problems.append(f"{key}[{i}].{label}: {entry[label]!r} is used more than once")
            seen.add(entry[label])
    for path, source in data["referenceSolution"].items():
        if path.endswith(".py"):
            problems += _compile_problem(f"referenceSolution[{json.dumps(path)}]", source)
    problems += _compile_problem("setup", data["setup"])
    for i, test in enumerate(data["hiddenTests"]):
        problems += _compile_problem(f"hiddenTests[{i}].code", test["code"])
    return problems


def _compile_problem(where: str, source: str) -> list[str]:
    try:
        compile(source, where, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return [f"{where}: does not compile: {exc.msg} (line {exc.lineno})"]
    except ValueError as exc:
        return [f"{where}: does not compile: {exc}"]
    return []


def to_requirement(data: dict[str, Any], base: ProjectRequirement) -> ProjectRequirement:
    """A checked answer as a requirement; the drawn metadata and slots of ``base`` are kept."""
    guidance = data["evaluationGuidance"]
    return ProjectRequirement(
        id=f"{base.id}~generated",
        template_id=base.template_id,
        title=data["title"].strip(),
        description=data["description"].strip() + "\n",
        requirements=tuple(
            FunctionalRequirement(id=r["id"], text=r["description"], acceptance=r["acceptanceCriteria"],
                                  priority=_PRIORITY[r["priority"]])
            for r in data["functionalRequirements"]
        ),
        constraints=tuple(data["constraints"]),
        deliverables=tuple(data["expectedDeliverables"]),
        interface=Interface(kind=data["interface"]["kind"], text=data["interface"]["text"]),
        metadata=base.metadata,
        guidance=Guidance(differentiators=tuple(guidance["keyDifferentiators"]),
                          pitfalls=tuple(guidance["commonPitfalls"]),
                          edge_cases=tuple(guidance["edgeCases"])),
        slots=base.slots,
        reference=dict(data["referenceSolution"]),
        setup=data["setup"],
        probes=tuple(
            Probe(name=t["name"], code=t["code"], expect=t.get("expect"), raises=t.get("raises"),
                  priority=_PRIORITY[t["priority"]])
            for t in data["hiddenTests"]
        ),
    )


def read_answer(text: str, base: ProjectRequirement) -> tuple[ProjectRequirement, ParseRoute]:
    """Parse, check and convert a stage-3 answer; raises :class:`StructureError`."""
    data, route = parse_answer(text)
    problems = schema_problems(data)
    if problems:
        raise StructureError(problems)
    return to_requirement(data, base), route


def as_answer(req: ProjectRequirement) -> dict[str, Any]:
    """A requirement in the schema's form (what a perfect stage-3 answer looks like)."""
    back = {v: k for k, v in _PRIORITY.items()}
    meta = req.metadata
    return {
        "id": req.id, "title": req.title, "description": req.description,
        "functionalRequirements": [
            {"id": r.id, "description": r.text, "acceptanceCriteria": r.acceptance,
             "priority": back[r.priority]} for r in req.requirements
        ],
        "constraints": list(req.constraints), "expectedDeliverables": list(req.deliverables),
        "metadata": {"skills": list(meta.skills), "complexity": meta.complexity,
                     "domain": meta.domain or "", "scenario": meta.scenario or ""},
        "evaluationGuidance": {"keyDifferentiators": list(req.guidance.differentiators),
                               "commonPitfalls": list(req.guidance.pitfalls),
                               "edgeCases": list(req.guidance.edge_cases)},
        "interface": {"kind": req.interface.kind, "text": req.interface.text},
        "referenceSolution": dict(req.reference), "setup": req.setup,
        "hiddenTests": [
            {"name": p.name, "code": p.code, "priority": back[p.priority],
             **({"raises": p.raises} if p.raises else {"expect": p.expect})}
            for p in req.probes
        ],
    }
