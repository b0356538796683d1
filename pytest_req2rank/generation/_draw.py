"""The per-round draw: skills × complexity × domain/scenario, a fitting template, and its mutations.

Deterministic from the run seed and the library: one random stream for the
whole plan, so the first ``n`` rounds of a longer plan are the plan of ``n``
rounds. The draw spreads over the library: a matrix cell is drawn uniformly,
then the least-used fitting template (or pair), its least-used domain, and a slot
assignment not used before.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ..models import COMPLEXITIES, DOMAINS, SKILLS
from ._compose import clash, composed_complexity
from ._constraints import CATALOGUE
from ._domains import preferred_values, scenarios_of
from ._instantiate import Assignment, assignments
from ._mutations import base_requirement
from ._spec import MutationKind, RequirementSpec, item_id
from ._template import Template

COMPOSITION_SHARE = 0.3
"""Chance that a matrix cell reachable both ways is served by a composition."""
STACKED = (0, 1, 2)
"""How many extra constraints a round may stack (drawn uniformly)."""
_REDRAWS = 20
_T = TypeVar("_T")


@dataclass(frozen=True)
class _Option:
    templates: tuple[Template, ...]
    complexity: str
    skills: tuple[str, ...]
    domains: tuple[str, ...]

    @property
    def key(self) -> tuple[str, ...]:
        return tuple(template.id for template in self.templates)


def plan_rounds(
    templates: Iterable[Template],
    *,
    rounds: int,
    seed: int,
    complexities: Sequence[str] | None = None,
    skills: Sequence[str] | None = None,
    domains: Sequence[str] | None = None,
) -> list[RequirementSpec]:
    """Plan ``rounds`` requirements from the library, deterministically from ``seed``.

    The filters restrict the draw (a requirement qualifies with any one of the
    ``skills``); raises ``ValueError`` for unknown filter values or when the
    filters leave nothing to draw.
    """
    if rounds < 0:
        raise ValueError(f"rounds must be >= 0, got {rounds}")
    wanted_c = _checked("complexity", complexities, COMPLEXITIES)
    wanted_s = _checked("skill", skills, SKILLS)
    wanted_d = _checked("domain", domains, DOMAINS)
    library = sorted(templates, key=lambda t: t.id)
    options = _options(library, wanted_c, wanted_s, wanted_d)
    if not options:
        raise ValueError(
            f"no template fits complexities {sorted(wanted_c)}, skills {sorted(wanted_s)} and "
            f"domains {sorted(wanted_d)}; the library has {len(library)} templates "
            f"({_inventory(library)})"
        )
    cells = sorted({(skill, o.complexity) for o in options for skill in o.skills
                    if skill in wanted_s})
    draw = _Draw(random.Random(f"req2rank-plan:{seed}"), options)
    return [draw.round(index, cells) for index in range(1, rounds + 1)]


def _checked(label: str, given: Sequence[str] | None, known: Iterable[str]) -> set[str]:
    known = list(known)
    if not given:
        return set(known)
    unknown = [g for g in given if g not in known]
    if unknown:
        raise ValueError(f"unknown {label} {unknown}; choose from {', '.join(known)}")
    return set(given)


def _inventory(library: list[Template]) -> str:
    counts = Counter(template.complexity for template in library)
    return ", ".join(f"{c}: {counts[c]}" for c in sorted(counts))


def _options(library: list[Template], complexities: set[str], skills: set[str],
             domains: set[str]) -> list[_Option]:
    options = [
        _Option((template,), template.complexity, template.skills,
                tuple(d for d in template.domains if d in domains))
        for template in library if template.complexity in complexities
    ]
    for i, a in enumerate(library):
        for b in library[i + 1:]:
            if composed_complexity(a, b) in complexities and clash(a, b) is None:
                skills_ab = (*a.skills, *(s for s in b.skills if s not in a.skills))
                common = tuple(d for d in a.domains if d in b.domains and d in domains)
                options.append(_Option((a, b), composed_complexity(a, b), skills_ab, common))
    return [o for o in options if o.domains and set(o.skills) & skills]


class _Draw:
    def __init__(self, rng: random.Random, options: list[_Option]) -> None:
        self.rng = rng
        self.options = options
        self.option_use: Counter[tuple[str, ...]] = Counter()
        self.domain_use: Counter[tuple[tuple[str, ...], str]] = Counter()
        self.slots_used: defaultdict[str, set[str]] = defaultdict(set)
        self.keys: set[str] = set()

    def round(self, index: int, cells: list[tuple[str, str]]) -> RequirementSpec:
        spec = self._once(index, cells)
        for _ in range(_REDRAWS):
            if spec.key not in self.keys:
                break
            spec = self._once(index, cells)
        self.keys.add(spec.key)
        self.option_use[spec.templates] += 1
        self.domain_use[(spec.templates, spec.domain)] += 1
        for template_id, slots in zip(spec.templates, spec.slots, strict=True):
            self.slots_used[template_id].add(repr(sorted(slots.items())))
        return spec

    def _once(self, index: int, cells: list[tuple[str, str]]) -> RequirementSpec:
        rng = self.rng
        skill, complexity = rng.choice(cells)
        fitting = [o for o in self.options if o.complexity == complexity and skill in o.skills]
        singles = [o for o in fitting if len(o.templates) == 1]
        pairs = [o for o in fitting if len(o.templates) == 2]
        pool = pairs if pairs and (not singles or rng.random() < COMPOSITION_SHARE) else singles
        option = self._least(pool, lambda o: self.option_use[o.key])
        domain = self._least(list(option.domains), lambda d: self.domain_use[(option.key, d)])
        listed = [s for template in option.templates for s in template.scenarios
                  if s.startswith(f"{domain}/")]
        scenario = rng.choice(sorted(set(listed)) or list(scenarios_of(domain)))
        slots = tuple(self._slots(template, domain) for template in option.templates)
        mutations: list[MutationKind] = ["slot-filling"]
        if len(option.templates) == 2:
            mutations.append("composition")
        if domain != option.templates[0].domains[0]:
            mutations.append("domain-migration")
        spec = RequirementSpec(
            item_id=item_id(index, option.key, complexity, domain), round=index,
            templates=option.key, slots=slots, complexity=option.complexity,  # type: ignore[arg-type]
            skills=option.skills, domain=domain, scenario=scenario, mutations=tuple(mutations),
        )
        count = rng.choice(STACKED)
        if not count:
            return spec
        base = base_requirement(spec, {template.id: template for template in option.templates})
        fitting_constraints = [c.id for c in CATALOGUE.values()
                               if c.judge_only or c.applies_to(base.reference, base.constraints)]
        count = min(count, len(fitting_constraints))
        chosen = set(rng.sample(fitting_constraints, count))
        return spec.model_copy(update={
            "constraints": tuple(c for c in CATALOGUE if c in chosen),
            "mutations": (*spec.mutations, "constraint-stacking"),
        })

    def _least(self, pool: list[_T], uses: Callable[[_T], int]) -> _T:
        counts = [uses(item) for item in pool]
        low = min(counts)
        return self.rng.choice([item for item, n in zip(pool, counts, strict=True) if n == low])

    def _slots(self, template: Template, domain: str) -> Assignment:
        every = assignments(template)
        fitting = every
        for spec in template.slots:
            if spec.type == "str" and spec.tied_to is None:
                allowed = preferred_values(spec.values, domain)
                fitting = [a for a in fitting if a[spec.name] in allowed]
        fresh = [a for a in fitting if repr(sorted(a.items())) not in self.slots_used[template.id]]
        return dict(self.rng.choice(fresh or fitting))
