"""Slot filling: enumerating assignments and turning a template into a concrete requirement."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping

from ..models import FunctionalRequirement, Probe, ProjectRequirement, RequirementMetadata
from ._template import Template
from ._templating import SlotValue, evaluate_expect, render_code, render_expect, render_prose

Assignment = dict[str, SlotValue]


def assignment_count(template: Template) -> int:
    """How many distinct slot assignments the template has."""
    return math.prod(len(s.values) for s in template.slots if s.tied_to is None)


def assignments(template: Template, *, limit: int | None = None, rng_seed: int = 0) -> list[Assignment]:
    """Every slot assignment in a fixed order, or a deterministic sample of ``limit`` of them.

    The first assignment (every slot at its first value) is always included.
    """
    free = [s for s in template.slots if s.tied_to is None]
    total = assignment_count(template)
    if limit is None or limit >= total:
        indexes = list(itertools.product(*(range(len(s.values)) for s in free)))
    else:
        rng = random.Random(f"{template.id}:{rng_seed}")
        picked = {0} | set(rng.sample(range(1, total), max(limit - 1, 0)))
        indexes = [_unrank(n, [len(s.values) for s in free]) for n in sorted(picked)]
    return [_assign(template, dict(zip((s.name for s in free), combo))) for combo in indexes]


def _unrank(n: int, sizes: list[int]) -> tuple[int, ...]:
    out: list[int] = []
    for size in reversed(sizes):
        n, index = divmod(n, size)
        out.append(index)
    return tuple(reversed(out))


def _assign(template: Template, indexes: dict[str, int]) -> Assignment:
    result: Assignment = {}
    for spec in template.slots:
        index = indexes[spec.tied_to] if spec.tied_to else indexes[spec.name]
        result[spec.name] = spec.values[index]
    return result


def complete_assignment(template: Template, assignment: Mapping[str, SlotValue]) -> Assignment:
    """Check a (possibly partial) assignment and fill tied slots and missing ones with defaults."""
    names = {s.name for s in template.slots}
    unknown = set(assignment) - names
    if unknown:
        raise ValueError(f"template {template.id!r} has no slots {sorted(unknown)}")
    indexes: dict[str, int] = {}
    for spec in template.slots:
        if spec.tied_to is not None:
            continue
        value = assignment.get(spec.name, spec.values[0])
        if value not in spec.values or type(value) is not type(spec.values[spec.values.index(value)]):
            raise ValueError(f"{value!r} is not an allowed value of slot {spec.name!r}: {spec.values}")
        indexes[spec.name] = spec.values.index(value)
    result = _assign(template, indexes)
    for name, value in assignment.items():
        if result[name] != value:
            raise ValueError(f"slot {name!r} is tied and must be {result[name]!r}, not {value!r}")
    return result


def instantiate(
    template: Template,
    assignment: Mapping[str, SlotValue] | None = None,
    *,
    domain: str | None = None,
    scenario: str | None = None,
) -> ProjectRequirement:
    """The concrete requirement for one slot assignment (missing slots take their first value)."""
    values = complete_assignment(template, assignment or {})
    if domain is not None and domain not in template.domains:
        raise ValueError(f"template {template.id!r} does not fit domain {domain!r}: {template.domains}")

    def prose(text: str) -> str:
        return render_prose(text, values)

    probes = tuple(
        Probe(
            name=p.name,
            code=render_code(p.code, values),
            expect=(evaluate_expect(p.expect_expr, values) if p.expect_expr is not None
                    else render_expect(p.expect, values)),
            raises=p.raises,
            priority=p.priority,
            tolerance=p.tolerance,
        )
        for p in template.probes
    )
    suffix = "-".join(str(values[s.name]) for s in template.slots if s.tied_to is None)
    return ProjectRequirement(
        id=f"{template.id}[{suffix}]",
        template_id=template.id,
        title=prose(template.title),
        description=prose(template.description),
        requirements=tuple(
            FunctionalRequirement(id=r.id, text=prose(r.text), acceptance=prose(r.acceptance),
                                  priority=r.priority)
            for r in template.requirements
        ),
        constraints=tuple(prose(c) for c in template.constraints),
        deliverables=tuple(prose(d) for d in template.deliverables),
        interface=template.interface.model_copy(update={"text": prose(template.interface.text)}),
        metadata=RequirementMetadata(skills=template.skills, complexity=template.complexity,
                                     domain=domain, scenario=scenario),
        guidance=template.guidance.model_copy(update={
            "differentiators": tuple(prose(t) for t in template.guidance.differentiators),
            "pitfalls": tuple(prose(t) for t in template.guidance.pitfalls),
            "edge_cases": tuple(prose(t) for t in template.guidance.edge_cases),
        }),
        slots=values,
        reference={render_code(p, values): render_code(c, values) for p, c in template.reference.items()},
        setup=render_code(template.setup, values),
        probes=probes,
    )
