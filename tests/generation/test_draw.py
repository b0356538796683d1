"""The per-round draw: deterministic from the run seed, spread over the library, restricted by filters."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

import pytest

from pytest_req2rank.generation import (
    RequirementSpec,
    build_requirement,
    load_templates,
    plan_rounds,
)
from pytest_req2rank.generation._domains import SETTINGS, fits_domain
from pytest_req2rank.generation._spec import MUTATIONS
from pytest_req2rank.models import scenario_ids

TEMPLATES = load_templates()
BY_ID = {template.id: template for template in TEMPLATES}
ITEM_ID = re.compile(r"^dynamic/r(\d+)-([a-z0-9-]+(?:\+[a-z0-9-]+)?)-(C[1-4])-([a-z-]+)$")


@pytest.fixture(scope="module")
def hundred() -> list[RequirementSpec]:
    return plan_rounds(TEMPLATES, rounds=100, seed=20240601)


def test_the_same_seed_gives_the_same_plan_and_longer_plans_extend_shorter_ones(
    hundred: list[RequirementSpec],
) -> None:
    again = plan_rounds(list(reversed(TEMPLATES)), rounds=100, seed=20240601)
    assert again == hundred
    assert plan_rounds(TEMPLATES, rounds=10, seed=20240601) == hundred[:10]


def test_another_seed_gives_mostly_other_requirements(hundred: list[RequirementSpec]) -> None:
    other = plan_rounds(TEMPLATES, rounds=100, seed=7)
    shared = {s.key for s in hundred} & {s.key for s in other}
    assert len(shared) <= 10, f"{len(shared)} of 100 requirements are in both plans"
    assert sum(a.item_id == b.item_id for a, b in zip(hundred, other, strict=True)) <= 10


def test_a_hundred_rounds_are_nearly_all_distinct(hundred: list[RequirementSpec]) -> None:
    assert len({s.item_id for s in hundred}) == 100
    assert len({s.key for s in hundred}) >= 98
    assert len({s.problem_key for s in hundred}) >= 95
    texts = {build_requirement(s, TEMPLATES).model_dump_json(exclude={"id"}) for s in hundred}
    assert len(texts) >= 98


def test_rounds_spread_over_the_matrix_and_use_every_mutation(hundred: list[RequirementSpec]) -> None:
    mutations = Counter(m for s in hundred for m in s.mutations)
    assert set(mutations) == set(MUTATIONS)
    assert mutations["slot-filling"] == 100
    assert {s.complexity for s in hundred} == {"C1", "C2", "C3", "C4"}
    assert len({skill for s in hundred for skill in s.skills}) >= 9
    assert len({s.domain for s in hundred}) == 7
    most_used = Counter(s.templates for s in hundred).most_common(1)[0][1]
    assert most_used <= 8


def test_item_ids_are_readable_and_match_the_spec(hundred: list[RequirementSpec]) -> None:
    for index, spec in enumerate(hundred, start=1):
        match = ITEM_ID.match(spec.item_id)
        assert match, spec.item_id
        assert match.groups() == (str(index), "+".join(spec.templates), spec.complexity, spec.domain)
        assert spec.round == index
    assert hundred[0].item_id.startswith("dynamic/r1-")


def test_specs_survive_json_and_rebuild_the_same_requirement(hundred: list[RequirementSpec]) -> None:
    for spec in hundred[:30]:
        shipped = RequirementSpec.model_validate_json(spec.model_dump_json())
        assert shipped == spec
        assert build_requirement(shipped, TEMPLATES) == build_requirement(spec, BY_ID)


def test_drawn_templates_fit_the_drawn_cell_domain_and_scenario(hundred: list[RequirementSpec]) -> None:
    for spec in hundred:
        templates = [BY_ID[i] for i in spec.templates]
        assert all(spec.domain in template.domains for template in templates)
        assert spec.scenario.startswith(f"{spec.domain}/")
        assert set(spec.skills) == {skill for template in templates for skill in template.skills}
        if len(templates) == 1:
            assert spec.complexity == templates[0].complexity
        assert ("domain-migration" in spec.mutations) == (spec.domain != templates[0].domains[0])
        assert ("constraint-stacking" in spec.mutations) == bool(spec.constraints)


def test_domain_migration_reskins_domain_nouns(hundred: list[RequirementSpec]) -> None:
    checked = 0
    for spec in hundred:
        for template_id, slots in zip(spec.templates, spec.slots, strict=True):
            for slot in BY_ID[template_id].slots:
                if slot.type == "str" and slot.tied_to is None and any(
                        fits_domain(v, spec.domain) for v in slot.values):
                    assert fits_domain(slots[slot.name], spec.domain), (spec.item_id, slot.name)
                    checked += 1
    assert checked >= 20
    req = build_requirement(next(s for s in hundred if "domain-migration" in s.mutations), TEMPLATES)
    assert req.description.startswith("Setting: this component is part of")


def test_every_scenario_has_a_setting() -> None:
    assert set(SETTINGS) == set(scenario_ids())


@pytest.mark.parametrize(
    ("filters", "check"),
    [
        ({"complexities": ["C1"]}, lambda s: s.complexity == "C1" and len(s.templates) == 1),
        ({"complexities": ["C3"]}, lambda s: s.complexity == "C3"),
        ({"skills": ["security"]}, lambda s: "security" in s.skills),
        ({"skills": ["frontend", "testing"]}, lambda s: {"frontend", "testing"} & set(s.skills)),
        ({"domains": ["games"]}, lambda s: s.domain == "games"),
        ({"complexities": ["C2", "C4"], "domains": ["finance"], "skills": ["database"]},
         lambda s: s.complexity in ("C2", "C4") and s.domain == "finance" and "database" in s.skills),
    ],
)
def test_filters_restrict_the_draw(filters: dict[str, list[str]],
                                   check: Callable[[RequirementSpec], object]) -> None:
    specs = plan_rounds(TEMPLATES, rounds=25, seed=3, **filters)
    assert len(specs) == 25
    assert all(check(s) for s in specs), [s.item_id for s in specs if not check(s)]


def test_compositions_serve_cells_single_templates_cannot() -> None:
    skill = "error-handling"
    # the library without its own C3 templates of the skill: only compositions can fill the cell
    library = [template for template in TEMPLATES if not (template.complexity == "C3" and skill in template.skills)]
    specs = plan_rounds(library, rounds=20, seed=5, complexities=["C3"], skills=[skill])
    assert all(len(s.templates) == 2 and "composition" in s.mutations for s in specs)
    assert all(skill in s.skills for s in specs)


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        ({"skills": ["cooking"]}, r"unknown skill \['cooking'\]; choose from algorithm"),
        ({"complexities": ["C5"]}, r"unknown complexity \['C5'\]"),
        ({"domains": ["space"]}, r"unknown domain \['space'\]"),
        ({"skills": ["frontend"]},
         (r"no template fits complexities \['C1', 'C2', 'C3', 'C4'\], skills \['frontend'\] and "
          r"domains .*; the library has 2 templates \(C1: 1, C2: 1\)")),
        ({"complexities": ["C3"], "domains": ["finance"]}, r"no template fits complexities \[.C3.\]"),
        ({"complexities": ["C4"]}, r"no template fits complexities \['C4'\]"),
    ],
)
def test_filters_that_leave_nothing_say_so(filters: dict[str, list[str]], message: str) -> None:
    two = [BY_ID["rate-limiter"], BY_ID["word-frequency"]]
    with pytest.raises(ValueError, match=message):
        plan_rounds(two, rounds=3, seed=1, **filters)


def test_zero_rounds_is_an_empty_plan_and_negative_is_an_error() -> None:
    assert plan_rounds(TEMPLATES, rounds=0, seed=1) == []
    with pytest.raises(ValueError, match="rounds must be >= 0"):
        plan_rounds(TEMPLATES, rounds=-1, seed=1)


def test_a_spec_needs_one_assignment_per_template() -> None:
    with pytest.raises(ValueError, match="2 templates need as many slot assignments, got 1"):
        RequirementSpec(item_id="dynamic/r1-a+b-C3-games", round=1, templates=("a", "b"), slots=({},),
                        complexity="C3", skills=("algorithm",), domain="games",
                        scenario="games/game-loop", mutations=("slot-filling", "composition"))


def test_two_compatible_templates_compose_into_a_c3_requirement_in_a_shared_domain() -> None:
    two = [BY_ID["rate-limiter"], BY_ID["word-frequency"]]
    specs = plan_rounds(two, rounds=4, seed=1, complexities=["C3"])
    shared = set(two[0].domains) & set(two[1].domains)
    assert {s.templates for s in specs} == {("rate-limiter", "word-frequency")}
    assert all(s.domain in shared and s.complexity == "C3" for s in specs)
