"""The per-round draw: skills × complexity × domain/scenario, a fitting seed, and its mutations.

Deterministic from the run seed and the library: one random stream for the
whole plan, so the first ``n`` rounds of a longer plan are the plan of ``n``
rounds. The draw spreads over the library: a matrix cell is drawn uniformly,
then the least-used fitting seed (or pair), its least-used domain, and a slot
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
from ._models import Seed
from ._mutations import base_requirement
from ._spec import MutationKind, RequirementSpec, item_id

COMPOSITION_SHARE = 0.3
"""Chance that a matrix cell reachable both ways is served by a composition."""
STACKED = (0, 1, 2)
"""How many extra constraints a round may stack (drawn uniformly)."""
_REDRAWS = 20
_T = TypeVar("_T")


@dataclass(frozen=True)
class _Option:
    seeds: tuple[Seed, ...]
    complexity: str
    skills: tuple[str, ...]
    domains: tuple[str, ...]

    @property
    def key(self) -> tuple[str, ...]:
        return tuple(seed.id for seed in self.seeds)


def plan_rounds(
    seeds: Iterable[Seed],
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
    library = sorted(seeds, key=lambda s: s.id)
    options = _options(library, wanted_c, wanted_s, wanted_d)
    if not options:
        raise ValueError(
            f"no seed fits complexities {sorted(wanted_c)}, skills {sorted(wanted_s)} and "
            f"domains {sorted(wanted_d)}; the library has {len(library)} seeds "
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


def _inventory(library: list[Seed]) -> str:
    counts = Counter(seed.complexity for seed in library)
    return ", ".join(f"{c}: {counts[c]}" for c in sorted(counts))


def _options(library: list[Seed], complexities: set[str], skills: set[str],
             domains: set[str]) -> list[_Option]:
    options = [
        _Option((seed,), seed.complexity, seed.skills,
                tuple(d for d in seed.domains if d in domains))
        for seed in library if seed.complexity in complexities
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
        self.option_use[spec.seeds] += 1
        self.domain_use[(spec.seeds, spec.domain)] += 1
        for seed_id, slots in zip(spec.seeds, spec.slots, strict=True):
            self.slots_used[seed_id].add(repr(sorted(slots.items())))
        return spec

    def _once(self, index: int, cells: list[tuple[str, str]]) -> RequirementSpec:
        rng = self.rng
        skill, complexity = rng.choice(cells)
        fitting = [o for o in self.options if o.complexity == complexity and skill in o.skills]
        singles = [o for o in fitting if len(o.seeds) == 1]
        pairs = [o for o in fitting if len(o.seeds) == 2]
        pool = pairs if pairs and (not singles or rng.random() < COMPOSITION_SHARE) else singles
        option = self._least(pool, lambda o: self.option_use[o.key])
        domain = self._least(list(option.domains), lambda d: self.domain_use[(option.key, d)])
        listed = [s for seed in option.seeds for s in seed.scenarios if s.startswith(f"{domain}/")]
        scenario = rng.choice(sorted(set(listed)) or list(scenarios_of(domain)))
        slots = tuple(self._slots(seed, domain) for seed in option.seeds)
        mutations: list[MutationKind] = ["slot-filling"]
        if len(option.seeds) == 2:
            mutations.append("composition")
        if domain != option.seeds[0].domains[0]:
            mutations.append("domain-migration")
        spec = RequirementSpec(
            item_id=item_id(index, option.key, complexity, domain), round=index,
            seeds=option.key, slots=slots, complexity=option.complexity,  # type: ignore[arg-type]
            skills=option.skills, domain=domain, scenario=scenario, mutations=tuple(mutations),
        )
        count = rng.choice(STACKED)
        if not count:
            return spec
        base = base_requirement(spec, {seed.id: seed for seed in option.seeds})
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

    def _slots(self, seed: Seed, domain: str) -> Assignment:
        every = assignments(seed)
        fitting = every
        for spec in seed.slots:
            if spec.type == "str" and spec.tied_to is None:
                allowed = preferred_values(spec.values, domain)
                fitting = [a for a in fitting if a[spec.name] in allowed]
        fresh = [a for a in fitting if repr(sorted(a.items())) not in self.slots_used[seed.id]]
        return dict(self.rng.choice(fresh or fitting))
