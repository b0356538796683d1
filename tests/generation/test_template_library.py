"""Every template of the library loads, its reference passes its probes, and its probes kill its mutants."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest

from pytest_req2rank.execution import grade_probes
from pytest_req2rank.generation import (
    MIN_MUTATION_SCORE,
    Template,
    assignments,
    instantiate,
    load_templates,
    mutation_score,
    sandbox_grader,
)
from pytest_req2rank.generation._quality import ProbeGrader, reference_failures
from pytest_req2rank.models import ExecutionResult, Probe
from pytest_req2rank.mutation import mutate_files
from pytest_req2rank.sandbox import ProcessSandbox, create_sandbox

TEMPLATES = load_templates()
ASSIGNMENTS_PER_TEMPLATE = 8
"""Slot assignments checked per template: all of them, or a deterministic sample of this many."""
MUTANT_TIMEOUT_S = 3.0
MUTANTS_AT_ONCE = 4
"""Mutants graded at the same time. A mutant mostly waits (a deadlocked thread, a probe's own
time limit, a timeout): one template's mutants took 215 s one at a time, 56 s four at a time."""


@pytest.fixture(scope="module")
def grader() -> Iterator[ProbeGrader]:
    with create_sandbox("process") as sandbox:
        yield sandbox_grader(sandbox)


class BatchGrader:
    """A :class:`ProbeGrader` that grades a batch of file sets at once (:meth:`grade_all`),
    then answers a call for one of them from the batch; any other call is graded then."""

    def __init__(self, sandbox: ProcessSandbox) -> None:
        self.sandbox = sandbox
        self._batch: dict[tuple[object, ...], ExecutionResult] = {}
        self._probes: Sequence[Probe] = ()

    @staticmethod
    def _key(files: dict[str, str], timeout_s: float, setup: str) -> tuple[object, ...]:
        return tuple(sorted(files.items())), timeout_s, setup

    def grade_all(self, file_sets: list[dict[str, str]], probes: Sequence[Probe], *,
                  timeout_s: float, setup: str = "") -> None:
        def grade(files: dict[str, str]) -> ExecutionResult:
            return grade_probes(files, probes, self.sandbox, timeout_s=timeout_s, setup=setup)

        with ThreadPoolExecutor(MUTANTS_AT_ONCE) as pool:
            results = list(pool.map(grade, file_sets))
        self._probes = probes
        self._batch = {self._key(files, timeout_s, setup): result
                       for files, result in zip(file_sets, results, strict=True)}

    def __call__(self, files: dict[str, str], probes: Sequence[Probe], *, timeout_s: float,
                 setup: str = "") -> ExecutionResult:
        found = self._batch.get(self._key(files, timeout_s, setup))
        if found is not None and list(probes) == list(self._probes):
            return found
        return grade_probes(files, probes, self.sandbox, timeout_s=timeout_s, setup=setup)


@pytest.fixture(scope="module")
def batch_grader() -> Iterator[BatchGrader]:
    with ProcessSandbox(servers=MUTANTS_AT_ONCE) as box:
        yield BatchGrader(box)  # type: ignore[arg-type]


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


@pytest.mark.slow  # every mutant of 57 templates: ~11 min of worker time (-n 2, loaded 2 cores)
@pytest.mark.timeout(600)  # about 1 min for the slowest template (real waits), never unbounded
@pytest.mark.parametrize("template", TEMPLATES, ids=lambda s: s.id)
def test_probes_kill_first_order_mutants(template: Template, batch_grader: BatchGrader) -> None:
    req = instantiate(template)
    mutants = [mutant.apply(req.reference) for mutant in mutate_files(req.reference)]
    batch_grader.grade_all(mutants, req.probes, timeout_s=MUTANT_TIMEOUT_S, setup=req.setup)
    result = mutation_score(req, batch_grader, timeout_s=MUTANT_TIMEOUT_S)
    assert result.total > 0
    assert result.score >= MIN_MUTATION_SCORE, (
        f"{template.id}: {result.killed}/{result.total} mutants killed ({result.score:.0%}); "
        "survivors:\n" + "\n".join(result.survivors)
    )
