"""Every template of the library loads, its reference passes its probes, and its probes kill its mutants."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_req2rank.generation import (
    MIN_MUTATION_SCORE,
    ProbeGrader,
    Template,
    assignments,
    instantiate,
    load_templates,
    mutation_score,
    reference_failures,
    sandbox_grader,
)
from pytest_req2rank.sandbox import create_sandbox

TEMPLATES = load_templates()
ASSIGNMENTS_PER_TEMPLATE = 8
"""Slot assignments checked per template: all of them, or a deterministic sample of this many."""


@pytest.fixture(scope="module")
def grader() -> Iterator[ProbeGrader]:
    with create_sandbox("process") as sandbox:
        yield sandbox_grader(sandbox)


def test_library_is_not_empty_and_ids_are_unique() -> None:
    assert len(TEMPLATES) >= 8
    assert len({s.id for s in TEMPLATES}) == len(TEMPLATES)


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda s: s.id)
def test_reference_passes_every_probe(template: Template, grader: ProbeGrader) -> None:
    failures = [
        line
        for assignment in assignments(template, limit=ASSIGNMENTS_PER_TEMPLATE)
        for line in reference_failures(instantiate(template, assignment), grader)
    ]
    assert not failures, "\n".join(failures)


@pytest.mark.slow  # every mutant of 57 templates: 19 min of worker time (-n 2, loaded 2 cores)
@pytest.mark.timeout(600)  # up to 3.5 min a template (threads, real waits), never unbounded
@pytest.mark.parametrize("template", TEMPLATES, ids=lambda s: s.id)
def test_probes_kill_first_order_mutants(template: Template, grader: ProbeGrader) -> None:
    result = mutation_score(instantiate(template), grader)
    assert result.total > 0
    assert result.score >= MIN_MUTATION_SCORE, (
        f"{template.id}: {result.killed}/{result.total} mutants killed ({result.score:.0%}); "
        "survivors:\n" + "\n".join(result.survivors)
    )
