"""Rebuilding a planned round's requirement: slot filling, domain migration, composition, constraints.

Every mutation keeps the reference solution and the hidden probes consistent
with the text: slots are filled in prose, code and expectations alike; a
domain migration only re-skins nouns (through slot values chosen at planning)
and states the setting; a composition delivers both parts with both probe
sets; a stacked constraint is enforced by a probe the reference passes, or is
flagged to the judges as untested.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..models import ProjectRequirement
from ._compose import compose
from ._constraints import CATALOGUE
from ._domains import setting_text
from ._instantiate import instantiate
from ._spec import RequirementSpec
from ._template import Template

JUDGE_ONLY_PREFIX = "Judge-only constraint (no hidden test checks it): "


def template_index(templates: Mapping[str, Template] | Iterable[Template]) -> dict[str, Template]:
    """Templates by id."""
    if isinstance(templates, Mapping):
        return dict(templates)
    return {template.id: template for template in templates}


def build_requirement(spec: RequirementSpec,
                      templates: Mapping[str, Template] | Iterable[Template]) -> ProjectRequirement:
    """The concrete requirement of a planned round; the same on every process.

    Raises ``KeyError`` when the library lacks one of the spec's templates and
    ``ValueError`` when a slot value or constraint is not (any longer) valid.
    """
    return stack_constraints(base_requirement(spec, templates), spec.constraints)


def base_requirement(spec: RequirementSpec,
                     templates: Mapping[str, Template] | Iterable[Template]) -> ProjectRequirement:
    """The requirement before constraint stacking."""
    library = template_index(templates)
    missing = [template_id for template_id in spec.templates if template_id not in library]
    if missing:
        raise KeyError(f"{spec.item_id}: the template library has no template {missing}")
    parts = [instantiate(library[template_id], slots, domain=spec.domain, scenario=spec.scenario)
             for template_id, slots in zip(spec.templates, spec.slots, strict=True)]
    if len(parts) == 2:
        req = compose((parts[0], parts[1]), complexity=spec.complexity, skills=spec.skills)
    else:
        req = parts[0]
    setting = setting_text(spec.domain, spec.scenario)
    return req.model_copy(update={
        "description": f"{setting}\n\n{req.description.strip()}\n",
        "metadata": req.metadata.model_copy(update={
            "skills": spec.skills, "complexity": spec.complexity,
            "domain": spec.domain, "scenario": spec.scenario,
        }),
    })


def stack_constraints(req: ProjectRequirement, ids: Iterable[str]) -> ProjectRequirement:
    """Add catalogue constraints: their text, and a probe each (or a flag to the judges)."""
    ids = tuple(ids)
    if not ids:
        return req
    unknown = [i for i in ids if i not in CATALOGUE]
    if unknown:
        raise ValueError(f"unknown constraints {unknown}; the catalogue has {list(CATALOGUE)}")
    chosen = [CATALOGUE[i] for i in ids]
    for constraint in chosen:
        if not constraint.judge_only and not constraint.applies_to(req.reference, ()):
            raise ValueError(f"{req.id}: the reference breaks constraint {constraint.id!r}: "
                             f"{constraint.violations(req.reference)}")
    return req.model_copy(update={
        "constraints": (*req.constraints, *(c.text for c in chosen)),
        "probes": (*req.probes, *(c.probe(req.reference) for c in chosen if not c.judge_only)),
        "guidance": req.guidance.model_copy(update={
            "differentiators": (*req.guidance.differentiators,
                                *(JUDGE_ONLY_PREFIX + c.text for c in chosen if c.judge_only)),
        }),
    })
