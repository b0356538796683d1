"""Calibrating a generated requirement in the sandbox: keep the probes its reference passes,
then demand enough of them, and enough killed mutants, for the requirement to mean something."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..models import ProjectRequirement
from ._quality import InfrastructureError, ProbeGrader, mutation_score


class CalibrationPolicy(BaseModel):
    """How much a generated requirement must prove before it replaces the offline template variant."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_probes: int = Field(default=5, ge=1, description="Probes the reference must pass")
    min_kept_share: float = Field(default=0.6, ge=0, le=1,
                                  description="Share of the generated probes the reference passes")
    min_mutation_score: float = Field(default=0.7, ge=0, le=1,
                                      description="Share of sampled reference mutants killed")
    mutant_limit: int = Field(default=40, ge=1, description="Mutants sampled per calibration")
    timeout_s: float = Field(default=10.0, gt=0, description="Budget of one grading run")


class DroppedProbe(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    status: str
    detail: str = ""


class Calibration(BaseModel):
    """What calibration found: probes kept and dropped, mutants killed, and the verdict."""

    model_config = ConfigDict(frozen=True)

    probes_total: int
    kept: tuple[str, ...]
    dropped: tuple[DroppedProbe, ...]
    mutants_total: int = 0
    mutants_killed: int = 0
    accepted: bool
    reason: str = ""

    @property
    def mutation_score(self) -> float:
        return self.mutants_killed / self.mutants_total if self.mutants_total else 0.0


def calibrate(req: ProjectRequirement, grader: ProbeGrader,
              policy: CalibrationPolicy | None = None) -> tuple[ProjectRequirement, Calibration]:
    """Grade the reference on every probe, drop the ones it fails, then score mutants.

    Returns the requirement with only the kept probes and the verdict. Raises
    :class:`InfrastructureError` when the sandbox fails.
    """
    policy = policy or CalibrationPolicy()
    result = grader(req.reference, req.probes, timeout_s=policy.timeout_s, setup=req.setup)
    if result.status == "sandbox_error":
        raise InfrastructureError(f"{req.id}: the sandbox failed during calibration: {result.reason}")
    outcomes = {t.name: t for t in result.tests}
    kept = [p for p in req.probes if p.name in outcomes and outcomes[p.name].status == "success"]
    dropped = tuple(
        DroppedProbe(name=p.name, status=outcomes[p.name].status if p.name in outcomes else "missing",
                     detail=(outcomes[p.name].detail or "") if p.name in outcomes else
                     (result.reason or "no outcome"))
        for p in req.probes if p not in kept
    )
    calibrated = req.model_copy(update={"probes": tuple(kept)})
    report = Calibration(probes_total=len(req.probes), kept=tuple(p.name for p in kept),
                         dropped=dropped, accepted=False)
    share = len(kept) / len(req.probes) if req.probes else 0.0
    if len(kept) < policy.min_probes or share < policy.min_kept_share:
        reason = (f"the reference passes {len(kept)} of {len(req.probes)} hidden tests; at least "
                  f"{policy.min_probes} and {policy.min_kept_share:.0%} are needed")
        return calibrated, report.model_copy(update={"reason": reason})
    score = mutation_score(calibrated, grader, timeout_s=policy.timeout_s,
                           limit=policy.mutant_limit)
    report = report.model_copy(update={"mutants_total": score.total, "mutants_killed": score.killed})
    if score.total == 0 or score.score < policy.min_mutation_score:
        reason = (f"the hidden tests kill {score.killed} of {score.total} mutants of the "
                  f"reference; {policy.min_mutation_score:.0%} are needed")
        return calibrated, report.model_copy(update={"reason": reason})
    return calibrated, report.model_copy(update={"accepted": True})
