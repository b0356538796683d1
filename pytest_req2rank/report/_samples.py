"""Stratified Q&A samples: N items per dataset, drawn by final status with the run's seed.

How N is split (the Phase-0 rule): equally over the final statuses present in the dataset,
the remainder one each to the first statuses in alphabetical order; a status with fewer
items than its share gives all it has, and what it could not give goes, by the same rule,
to the statuses with items left, so N items are drawn whenever the dataset has N. Within a
status the items are drawn at random with the run's seed (and the dataset's name), from
the items sorted by id: the same run draws the same samples, whatever order its items
finished in.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from ..models import ItemResult, Status
from ._qalog import qa_record

Key = TypeVar("Key", bound=str)

SAMPLES_FILE = "qa_samples.jsonl"
"""The samples' file, beside the run's Q&A log."""


class DatasetSample(BaseModel):
    """The items drawn from one dataset, and how many of each final status."""

    model_config = ConfigDict(extra="forbid")

    available: dict[Status, int] = Field(description="Items of each final status in the dataset")
    drawn: dict[Status, int] = Field(description="Items drawn of each final status")
    item_ids: list[str] = Field(description="The drawn items, by status (alphabetical), then "
                                "in the order drawn")


class QaSamples(BaseModel):
    """Stratified samples of a run (``--r2r-qa-samples``): the same records as the Q&A log."""

    model_config = ConfigDict(extra="forbid")

    per_dataset: int = Field(description="N: items asked for per dataset")
    seed: int = Field(description="The run's seed, which drew them")
    datasets: dict[str, DatasetSample]


def allocate(available: Mapping[Key, int], n: int) -> dict[Key, int]:
    """How many of each status to draw (module docstring); statuses in alphabetical order."""
    if n < 0:
        raise ValueError(f"the number of samples must not be negative, got {n}")
    drawn = {status: 0 for status in sorted(available) if available[status] > 0}
    wanted = min(n, sum(available[status] for status in drawn))
    while wanted > 0:
        open_statuses = [status for status in drawn if drawn[status] < available[status]]
        base, extra = divmod(wanted, len(open_statuses))
        for index, status in enumerate(open_statuses):
            share = base + (1 if index < extra else 0)
            taken = min(share, available[status] - drawn[status])
            drawn[status] += taken
            wanted -= taken
    return drawn


def stratified_sample(items: Iterable[ItemResult], n: int, seed: int) -> QaSamples:
    """Draw ``n`` items per dataset, stratified by final status (module docstring)."""
    by_dataset: dict[str, dict[Status, list[ItemResult]]] = {}
    for item in items:
        by_dataset.setdefault(item.dataset, {}).setdefault(item.status, []).append(item)
    datasets = {}
    for dataset, groups in by_dataset.items():
        available = {status: len(group) for status, group in groups.items()}
        drawn = allocate(available, n)
        rng = random.Random(f"{seed}/{dataset}")
        item_ids: list[str] = []
        for status, count in drawn.items():
            ids = sorted(item.item_id for item in groups[status])
            item_ids += rng.sample(ids, count)
        datasets[dataset] = DatasetSample(
            available=dict(sorted(available.items())), drawn=drawn,
            item_ids=item_ids,
        )
    return QaSamples(per_dataset=n, seed=seed, datasets=datasets)


def sample_records(items: Sequence[ItemResult], samples: QaSamples, *,
                   temperature: float, max_new_tokens: int) -> list[dict[str, Any]]:
    """The drawn items' Q&A log records, dataset by dataset, in the order drawn."""
    by_id = {item.item_id: item for item in items}
    return [qa_record(by_id[item_id], temperature=temperature, max_new_tokens=max_new_tokens)
            for sample in samples.datasets.values() for item_id in sample.item_ids
            if item_id in by_id]


def write_samples(path: Path, records: Iterable[Mapping[str, Any]]) -> Path:
    """Write the records as JSON lines (atomically: a reader never sees half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for record in records:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    tmp.replace(path)
    return path
