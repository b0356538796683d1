"""The run plan: run id, seed and the frozen list of items, decided before collection."""

from __future__ import annotations

import random
from datetime import datetime, timezone

from pydantic import BaseModel, ConfigDict

from ..draws import new_run_id, new_seed
from ..models import Task


class RunPlan(BaseModel):
    """What a run will do. Built once on the controller and shipped to every xdist worker."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    seed: int
    model: str
    suite: str
    created_at: str
    item_ids: tuple[str, ...]


def select_tasks(tasks: list[Task], sample: int | None, seed: int) -> list[Task]:
    """All tasks, or a deterministic subset of ``sample`` of them, kept in suite order."""
    if sample is None or sample >= len(tasks):
        return list(tasks)
    chosen = set(random.Random(seed).sample(range(len(tasks)), sample))
    return [task for index, task in enumerate(tasks) if index in chosen]


def build_plan(
    tasks: list[Task],
    *,
    model: str,
    suite: str,
    seed: int | None,
    sample: int | None,
    run_id: str | None = None,
) -> RunPlan:
    """Freeze the items of a run."""
    seed = new_seed() if seed is None else seed
    selected = select_tasks(tasks, sample, seed)
    return RunPlan(
        run_id=run_id or new_run_id(),
        seed=seed,
        model=model,
        suite=suite,
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        item_ids=tuple(task.item_id for task in selected),
    )
