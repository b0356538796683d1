"""The run plan: run id, seed and the frozen list of items, decided before collection; and what
a submitted run declares of its plan when it fetches its nonce, before its seed is known (its
model, and the settings that decide what it asks and how it is graded), so the hub can hold
the run to them."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..draws import new_run_id, new_seed
from ..models import ItemId, Task

SampleCounts = int | Mapping[str, int]
"""Samples per task: one number for every task, or a number per task id (a samples file's
completions; a task it does not name gets one)."""


class RunPlan(BaseModel):
    """What a run will do. Built once on the controller and shipped to every xdist worker."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    seed: int
    model: str
    suite: str
    created_at: str
    item_ids: tuple[str, ...]
    samples: int = Field(
        default=1, ge=1, description="The most samples of a task; above 1, every item id reads "
        "DATASET/TASK/sK (sample K of the task, 0-based)"
    )
    nversion: int | None = Field(
        default=None, ge=2, description="An N-version run: N versions per task, items "
        "nversion/TASK/vK and nversion/TASK/Pat-XXk; None otherwise"
    )

    def split_item_id(self, item_id: str) -> tuple[str, int | None]:
        """The task's item id and the sample index of one of this plan's item ids
        (``DATASET/TASK/sK`` → ``(DATASET/TASK, K)``, and ``DATASET/TASK/sK@MODEL`` alike); the
        id itself and ``None`` when the plan asks once per task or the id is no sample's."""
        parsed = ItemId.try_parse(item_id) if self.samples > 1 or "@" in item_id else None
        if parsed is None:
            return item_id, None
        return str(parsed.task_item), parsed.sample


def select_tasks(tasks: list[Task], sample: int | None, seed: int) -> list[Task]:
    """All tasks, or a deterministic subset of ``sample`` of them, kept in suite order."""
    if sample is None or sample >= len(tasks):
        return list(tasks)
    chosen = set(random.Random(seed).sample(range(len(tasks)), sample))
    return [task for index, task in enumerate(tasks) if index in chosen]


def sample_tasks(tasks: list[Task], samples: SampleCounts) -> list[Task]:
    """One task per item: each task once when no task has more than one sample, else each
    task's samples in order, every one with its index and its item id ``DATASET/TASK/sK``."""
    counts = [samples if isinstance(samples, int) else samples.get(task.task_id, 1)
              for task in tasks]
    if max(counts, default=1) <= 1:
        return list(tasks)
    return [task.model_copy(update={"item_id": str(ItemId.parse(task.item_id).with_sample(k)),
                                    "sample": k})
            for task, count in zip(tasks, counts, strict=True) for k in range(count)]


def with_models(tasks: list[Task], models: Sequence[str]) -> list[Task]:
    """``tasks`` as they are for a run of one model (``models`` empty); else each task once per
    model, in that order, its item id ``ITEM@MODEL``: every model answers the same items."""
    if not models:
        return list(tasks)
    return [task.model_copy(update={"item_id": str(ItemId.parse(task.item_id).with_model(model))})
            for task in tasks for model in models]


def build_plan(
    tasks: list[Task],
    *,
    model: str,
    suite: str,
    seed: int | None,
    sample: int | None,
    run_id: str | None = None,
    samples: SampleCounts = 1,
    nversion: int | None = None,
    models: Sequence[str] = (),
) -> RunPlan:
    """Freeze the items of a run: the (sampled subset of the) tasks, each ``samples`` times,
    and each of those once per model of ``models`` (a ranking run; empty: a run of ``model``)."""
    seed = new_seed() if seed is None else seed
    selected = with_models(sample_tasks(select_tasks(tasks, sample, seed), samples), models)
    return RunPlan(
        run_id=run_id or new_run_id(),
        seed=seed,
        model=model,
        suite=suite,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        item_ids=tuple(task.item_id for task in selected),
        samples=max((task.sample + 1 for task in selected if task.sample is not None), default=1),
        nversion=nversion,
    )


def planned_tasks(plan: RunPlan, tasks: list[Task]) -> dict[str, Task]:
    """The task of each item of ``plan`` that ``tasks`` (the suite) holds, by item id: a
    sample item's task carries its sample index. Items the suite lacks are left out."""
    by_id = {task.item_id: task for task in tasks}
    planned: dict[str, Task] = {}
    for item_id in plan.item_ids:
        task_item_id, sample = plan.split_item_id(item_id)
        task = by_id.get(task_item_id)
        if task is not None:
            planned[item_id] = task if item_id == task_item_id else task.model_copy(
                update={"item_id": item_id, "sample": sample})
    return planned


DECLARED_SETTINGS = (
    "rounds", "complexity", "skills", "domains", "templates", "generator", "sample",
    "samples_per_task", "nversion", "faults", "judges", "exclude_self_judging",
    "execution_weight", "weights", "sandbox_timeout_ms", "max_tokens", "temperature",
)
"""The settings besides the suite and the seed that decide a run's items, its answers'
grading and its scores."""


def declared_settings(suite: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    """The suite and :data:`DECLARED_SETTINGS` of a run, from its settings as JSON data (the
    results JSON's ``run.settings``); a template directory only as whether there is one (its
    path is the submitter's)."""
    declared = {"suite": suite, **{name: settings.get(name) for name in DECLARED_SETTINGS}}
    declared["templates"] = bool(declared["templates"])
    return declared
