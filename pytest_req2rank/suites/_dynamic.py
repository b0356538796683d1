"""The dynamic suite: requirements drawn from the seed library, fresh for every run seed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from ..models import Task
from ._errors import SeedLibraryError, SuiteError

if TYPE_CHECKING:
    from ..generation import Seed

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
    from ..generation import build_requirement, plan_rounds

    seeds = _seed_library(options.seeds_dir)
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


def _seed_library(directory: Path | None) -> list[Seed]:
    """Every seed of the library; :class:`SeedLibraryError` (one line) when it cannot be used."""
    from ..generation import SeedError, default_seed_dir, load_seeds

    directory = directory or default_seed_dir()
    fix = "point --r2r-seeds at a directory of seed files (*.toml)"
    if not directory.exists():
        raise SeedLibraryError(f"{directory}: no such seed library; {fix}")
    if not directory.is_dir():
        raise SeedLibraryError(f"{directory}: not a directory; {fix}")
    try:
        seeds = load_seeds(directory)
    except SeedError as exc:
        more = len(exc.errors) - 1
        also = f" (and {more} more problem{'s' * (more > 1)} in {directory})" if more else ""
        raise SeedLibraryError(
            f"{exc.errors[0]}{also}; fix the seed file, or point --r2r-seeds at another library"
        ) from None
    if not seeds:
        raise SeedLibraryError(f"{directory}: no seed files (*.toml) in the library; {fix}")
    return seeds
