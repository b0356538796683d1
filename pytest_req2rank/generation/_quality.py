"""Proving a template's hidden tests: the reference passes them, and they kill its mutants."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from ..errors import Req2RankError
from ..execution import grade_probes
from ..models import ExecutionResult, Probe, ProjectRequirement
from ..mutation import mutate_files
from ..sandbox import Sandbox

MIN_MUTATION_SCORE = 0.9
"""Share of first-order mutants of the reference a template's probes must kill."""


class ProbeGrader(Protocol):
    """Grades files against probes: ``execution.grade_probes`` with its sandbox bound."""

    def __call__(self, files: dict[str, str], probes: Sequence[Probe], *, timeout_s: float,
                 setup: str = "") -> ExecutionResult: ...


class InfrastructureError(Req2RankError, RuntimeError):
    """The sandbox failed; nothing can be concluded about the template."""


class MutationScore(BaseModel):
    """How many first-order mutants of a reference the probes killed."""

    model_config = ConfigDict(frozen=True)

    requirement_id: str
    total: int
    killed: int
    survivors: tuple[str, ...] = Field(description="Descriptions of the mutants no probe killed")

    @property
    def score(self) -> float:
        return self.killed / self.total if self.total else 1.0


def sandbox_grader(sandbox: Sandbox) -> ProbeGrader:
    """``execution.grade_probes`` on ``sandbox`` (the caller's, which the caller closes)."""

    def grade(files: dict[str, str], probes: Sequence[Probe], *, timeout_s: float,
              setup: str = "") -> ExecutionResult:
        return grade_probes(files, probes, sandbox, timeout_s=timeout_s, setup=setup)

    return grade


def _run(grader: ProbeGrader, files: dict[str, str], req: ProjectRequirement,
         timeout_s: float) -> ExecutionResult:
    result = grader(files, req.probes, timeout_s=timeout_s, setup=req.setup)
    if result.status == "sandbox_error":
        raise InfrastructureError(f"{req.id}: the sandbox failed: {result.reason}")
    return result


def reference_failures(req: ProjectRequirement, grader: ProbeGrader, *,
                       timeout_s: float = 10.0) -> list[str]:
    """One line per probe the reference solution does not pass (empty when all pass)."""
    result = _run(grader, req.reference, req, timeout_s)
    failures = [f"{req.id}: probe {t.name!r}: {t.status}: {t.detail or t.actual}"
                for t in result.tests if t.status != "success"]
    if result.status != "success" and not failures:
        failures.append(f"{req.id}: {result.status}: {result.reason}")
    if len(result.tests) != len(req.probes) and not failures:
        failures.append(f"{req.id}: {len(result.tests)} outcomes for {len(req.probes)} probes")
    return failures


def mutation_score(req: ProjectRequirement, grader: ProbeGrader, *, timeout_s: float = 3.0,
                   limit: int | None = None, rng_seed: int = 0) -> MutationScore:
    """Grade every first-order mutant of the reference (or a sample of ``limit``).

    A mutant is killed when any probe fails, errors or times out. Equivalent
    mutants are not detected, so they count as survivors.
    """
    killed = 0
    survivors: list[str] = []
    found = list(mutate_files(req.reference, limit=limit, rng_seed=rng_seed))
    for mutant in found:
        result = _run(grader, mutant.apply(req.reference), req, timeout_s)
        if result.status == "success" and all(t.status == "success" for t in result.tests):
            survivors.append(f"{mutant.path} {mutant.description}")
        else:
            killed += 1
    return MutationScore(requirement_id=req.id, total=len(found), killed=killed,
                         survivors=tuple(survivors))
