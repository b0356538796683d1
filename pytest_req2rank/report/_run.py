"""The summary of a run's finished items, as the run computes it at its end and as
``req2rank`` recomputes it for a run that ended before it could (killed)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence

from ..models import ItemId, ItemResult, Usage
from ._document import ResumedRun, RunSummary
from ._judging import judge_usage, totals_of
from ._nversion import diversity_usage, nversion_summary
from ._summary import build_summary


def in_plan_order(items: Iterable[ItemResult], item_ids: Sequence[str]) -> list[ItemResult]:
    """``items`` in the order of the plan's ``item_ids`` (unplanned ones last)."""
    order = {item_id: index for index, item_id in enumerate(item_ids)}
    return sorted(items, key=lambda i: order.get(i.item_id, len(order)))


def version_items(items: Iterable[ItemResult]) -> list[ItemResult]:
    """The items that measure the model: all but an N-version run's ensemble checks, which
    measure the ensemble (they have a summary of their own)."""
    return [i for i in items if i.nversion is None or i.nversion.role == "version"]


def summarize_run(items: Sequence[ItemResult], *, item_ids: Sequence[str], nversion: int | None,
                  wall_time_s: float, seed: int, preflight: Usage | None = None) -> RunSummary:
    """The summary of a run planned as ``item_ids`` (``nversion``: its versions per task),
    before its gates: the score covers the version items, the N-version tables the rest.
    ``preflight``: the usage of the models' check before the first item, if it ran."""
    planned = [i for i in item_ids if not _is_ensemble_check(i)]
    summary = build_summary(
        version_items(items), planned=len(planned), wall_time_s=wall_time_s, seed=seed,
        diversity=diversity_usage(items) if nversion is not None else None,
        with_pass_at_k=nversion is None, preflight=preflight,
        planned_by_model=planned_by_model(planned) or None)
    if nversion is not None:
        summary = summary.model_copy(update={"nversion": nversion_summary(
            items, nversion, ensemble_planned=len(item_ids) - len(planned))})
    return summary


def planned_by_model(item_ids: Iterable[str]) -> dict[str, int]:
    """A run of several models' planned items per model (``ITEM@MODEL``), in the plan's
    order; empty for a run of one model."""
    counts: Counter[str] = Counter()
    for item_id in item_ids:
        found = ItemId.try_parse(item_id)
        if found is not None and found.model is not None:
            counts[found.model] += 1
    return dict(counts)


def item_counts(summary: RunSummary) -> tuple[int, int]:
    """The run's items finished and planned, of every kind: the scored items and an N-version
    run's ensemble checks (``items_total`` and ``items_planned`` count the scored ones)."""
    nv = summary.nversion
    checks = (0, 0) if nv is None else (nv.ensemble_items, nv.ensemble_planned)
    return summary.items_total + checks[0], summary.items_planned + checks[1]


def resumed_run(items: Iterable[ItemResult], *, kept: Collection[str],
                run_now: Collection[str]) -> ResumedRun:
    """What a resumed run kept (the items ``kept`` from earlier sessions) and what this
    session ran (``run_now``), with the model calls of each."""
    listed = list(items)
    earlier = [i for i in listed if i.item_id in kept]
    now = [i for i in listed if i.item_id in run_now and i.item_id not in kept]
    return ResumedRun(kept=len(earlier), run_now=len(now),
                      kept_totals=totals_of(_usage(earlier)),
                      session_totals=totals_of(_usage(now)))


def _usage(items: list[ItemResult]) -> Usage:
    """Every model call made for ``items``: target, judges, generator and diversity."""
    return (sum((i.usage + i.generator_usage for i in items), Usage()) + judge_usage(items)
            + diversity_usage(items))


def _is_ensemble_check(item_id: str) -> bool:
    found = ItemId.try_parse(item_id)
    return found is not None and found.is_ensemble_check
