"""The dynamic suite: requirements drawn from the seed library, fresh for every run seed."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ..models import Task
from ._errors import SuiteError

DATASET = "dynamic"


class DynamicOptions(BaseModel):
    """How to draw the dynamic suite (from ``--r2r-rounds``, ``--r2r-complexity``, …)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rounds: int = 1
    complexities: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()
    seeds_dir: Path | None = None


def load_dynamic(options: DynamicOptions, *, seed: int) -> list[Task]:
    """One task per drawn round; the same seed and options always give the same tasks.

    No model is called here: a task carries its plan entry (``spec``), from which
    any process rebuilds the requirement.
    """
    from ..generation import SeedError, build_requirement, load_seeds, plan_rounds

    try:
        seeds = load_seeds(options.seeds_dir)
    except SeedError as exc:
        raise SuiteError(str(exc).splitlines()[0]) from None
    if not seeds:
        raise SuiteError(f"no requirement seeds in {options.seeds_dir}; point --r2r-seeds at seeds/")
    try:
        specs = plan_rounds(
            seeds, rounds=options.rounds, seed=seed,
            complexities=options.complexities or None, skills=options.skills or None,
            domains=options.domains or None,
        )
    except ValueError as exc:
        raise SuiteError(f"dynamic: {exc}") from None
    by_id = {s.id: s for s in seeds}
    tasks = []
    for spec in specs:
        requirement = build_requirement(spec, by_id)
        tasks.append(Task(
            item_id=spec.item_id,
            dataset=DATASET,
            task_id=spec.item_id.split("/", 1)[-1],
            form="requirement",
            prompt=requirement.description,
            reference="",
            reference_files=requirement.reference,
            spec=spec.model_dump(mode="json"),
            source=f"seeds:{requirement.seed_id}",
        ))
    return tasks
