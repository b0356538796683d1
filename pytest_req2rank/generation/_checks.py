"""Semantic checks of a template that a JSON Schema cannot express.

Run on the raw data after it passed the schema; every finding is a
``(field path, reason)`` pair.
"""

from __future__ import annotations

import keyword
import re
import warnings
from collections import Counter
from collections.abc import Iterator
from typing import Any

from ..models import DOMAINS, SKILLS, field_path, scenario_ids
from ._templating import (
    ExpressionError,
    SlotValue,
    code_placeholders,
    expect_placeholders,
    expression_names,
    is_json_plain,
    prose_placeholders,
    render_code,
)

Finding = tuple[str, str]
_TYPES: dict[str, tuple[type, ...]] = {
    "int": (int,), "float": (float, int), "str": (str,), "identifier": (str,), "bool": (bool,),
}


def semantic_errors(data: dict[str, Any]) -> list[Finding]:
    """Every semantic mistake in a schema-valid template."""
    findings = [*_taxonomy(data), *_slots(data), *_placeholders(data), *_unique(data),
                *_expectations(data), *_reference_paths(data)]
    if not findings:
        findings += _compiles(data)
    return findings


def _taxonomy(data: dict[str, Any]) -> Iterator[Finding]:
    for i, skill in enumerate(data["skills"]):
        if skill not in SKILLS:
            yield f"skills[{i}]", f"{skill!r} is not a skill; choose from {', '.join(SKILLS)}"
    for i, domain in enumerate(data["domains"]):
        if domain not in DOMAINS:
            yield f"domains[{i}]", f"{domain!r} is not a domain; choose from {', '.join(DOMAINS)}"
    for i, scenario in enumerate(data.get("scenarios", [])):
        if scenario not in scenario_ids():
            yield f"scenarios[{i}]", f"{scenario!r} is not a 'domain/scenario' of the taxonomy"
        elif scenario.split("/")[0] not in data["domains"]:
            yield f"scenarios[{i}]", f"{scenario!r} belongs to a domain the template does not list"


def _slots(data: dict[str, Any]) -> Iterator[Finding]:
    slots: dict[str, dict[str, Any]] = data["slots"]
    for name, spec in slots.items():
        where = f"slots.{name}"
        for i, value in enumerate(spec["values"]):
            allowed = _TYPES[spec["type"]]
            if not isinstance(value, allowed) or (spec["type"] != "bool" and isinstance(value, bool)):
                yield f"{where}.values[{i}]", f"{value!r} is not of slot type {spec['type']}"
            elif spec["type"] == "identifier" and isinstance(value, str) and (
                not value.isidentifier() or keyword.iskeyword(value)
            ):
                yield f"{where}.values[{i}]", f"{value!r} is not a Python identifier"
        tied = spec.get("tied_to")
        if tied is None:
            continue
        if tied == name or tied not in slots:
            yield f"{where}.tied_to", f"{tied!r} is not another slot of this template"
        elif slots[tied].get("tied_to"):
            yield f"{where}.tied_to", f"{tied!r} is itself tied; tie to {slots[tied]['tied_to']!r}"
        elif len(slots[tied]["values"]) != len(spec["values"]):
            yield f"{where}.values", f"needs as many values as {tied!r} ({len(slots[tied]['values'])})"


def _prose_fields(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
    yield "title", data["title"]
    yield "description", data["description"]
    yield "interface.text", data["interface"]["text"]
    for i, req in enumerate(data["requirements"]):
        yield f"requirements[{i}].text", req["text"]
        yield f"requirements[{i}].acceptance", req["acceptance"]
    for key in ("constraints", "deliverables"):
        for i, text in enumerate(data[key]):
            yield f"{key}[{i}]", text
    for key, texts in data["guidance"].items():
        for i, text in enumerate(texts):
            yield f"guidance.{key}[{i}]", text


def _code_fields(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for path, content in data["reference"].items():
        yield field_path(["reference", path]), path
        yield field_path(["reference", path]), content
    yield "setup", data.get("setup", "")
    for i, probe in enumerate(data["probes"]):
        yield f"probes[{i}].code", probe["code"]


def _placeholders(data: dict[str, Any]) -> Iterator[Finding]:
    declared = set(data["slots"])
    used: set[str] = set()
    for where, text in _prose_fields(data):
        for name in prose_placeholders(text):
            used.add(name)
            if name not in declared:
                yield where, f"uses undeclared slot {{{name}}} (write {{{{ and }}}} for braces)"
    for where, text in _code_fields(data):
        used.update(code_placeholders(text, declared))
        for name in sorted(_shadowed(text, declared)):
            yield where, (f"slot {name!r} is also a Python name here, so an f-string "
                          f"{{{name}}} would be filled too; rename the slot")
    for i, probe in enumerate(data["probes"]):
        for name in expect_placeholders(probe.get("expect")):
            used.add(name)
            if name not in declared:
                yield f"probes[{i}].expect", f"uses undeclared slot {{{name}}}"
        if "expect_expr" in probe:
            try:
                names = expression_names(probe["expect_expr"])
            except ExpressionError as exc:
                yield f"probes[{i}].expect_expr", str(exc)
                continue
            used.update(names & declared)
            for name in sorted(names - declared):
                yield f"probes[{i}].expect_expr", f"reads {name!r}, which is not a declared slot"
    tied = {spec.get("tied_to") for spec in data["slots"].values()}
    for name in data["slots"]:
        if name not in used and name not in tied:
            yield f"slots.{name}", "is declared but never used"


def _shadowed(code: str, declared: set[str]) -> set[str]:
    bare = render_code(code, {name: "" for name in declared})
    return {name for name in declared if re.search(rf"(?<![\w.]){name}\b", bare)}


def _unique(data: dict[str, Any]) -> Iterator[Finding]:
    for key, label in (("requirements", "id"), ("probes", "name")):
        counts = Counter(entry[label] for entry in data[key])
        for i, entry in enumerate(data[key]):
            if counts[entry[label]] > 1:
                yield f"{key}[{i}].{label}", f"{entry[label]!r} is used more than once"
    ids = {req["id"] for req in data["requirements"]}
    for i, probe in enumerate(data["probes"]):
        if probe.get("requirement") and probe["requirement"] not in ids:
            yield f"probes[{i}].requirement", f"{probe['requirement']!r} is not a requirement id"


def _expectations(data: dict[str, Any]) -> Iterator[Finding]:
    for i, probe in enumerate(data["probes"]):
        if "expect" in probe and not is_json_plain(probe["expect"]):
            yield f"probes[{i}].expect", "is not plain JSON data (no dates or times)"


def _reference_paths(data: dict[str, Any]) -> Iterator[Finding]:
    for path in data["reference"]:
        if path.startswith("/") or ".." in path.split("/"):
            yield field_path(["reference", path]), "must be a relative path inside the solution"


def first_assignment(data: dict[str, Any]) -> dict[str, SlotValue]:
    """Every slot at its first value (tied slots follow)."""
    return {name: spec["values"][0] for name, spec in data["slots"].items()}


def _compiles(data: dict[str, Any]) -> Iterator[Finding]:
    values = first_assignment(data)
    sources = [(field_path(["reference", p]), p, c) for p, c in data["reference"].items()
               if p.endswith(".py")]
    sources.append(("setup", "setup", data.get("setup", "")))
    sources += [(f"probes[{i}].code", "probe", p["code"]) for i, p in enumerate(data["probes"])]
    for where, name, code in sources:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compile(render_code(code, values), name, "exec")
        except SyntaxError as exc:
            yield where, f"does not compile with slots {values}: {exc.msg} (line {exc.lineno})"
