"""Past runs from the store: where it is, opening it, and a run as its results document.

A run that finished has its summary in the store; one that was killed before it could
write one is summarized again from its stored items, as the run would have (without gates).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..options import spelling
from ..report import (
    ResultsDocument,
    RunInfo,
    RunSummary,
    in_plan_order,
    rank_items,
    ranking_section,
    summarize_run,
)
from ..settings import DEFAULT_DIR, Settings
from ..store import History, StoreUnusable
from ._command import CommandError

STORE_FILE = "req2rank.db"
UNFINISHED = "unfinished"
"""A run recorded as running: still running, or killed before it could finish."""


@dataclass(frozen=True)
class StoredRun:
    """A run of the store: its results document, how it ended and where its outputs went."""

    document: ResultsDocument
    status: str
    """finished, interrupted (Ctrl-C, -x) or unfinished (still running, or killed)."""
    results: Path
    qa_log: Path


def default_store(environ: Mapping[str, str] = os.environ) -> Path:
    """The store the plugin writes by default: ``R2R_DB``, else ``req2rank.db`` in ``R2R_DIR``,
    else ``.req2rank/req2rank.db`` in the current directory."""
    db = environ.get(spelling("env", "db"), "").strip()
    if db:
        return Path(db)
    directory = environ.get(spelling("env", "dir"), "").strip() or DEFAULT_DIR
    return Path(directory) / STORE_FILE


def open_history(path: Path) -> History:
    try:
        return History(path)
    except StoreUnusable as exc:
        raise CommandError(f"--db: {exc}") from None


def load_run(history: History, run_id: str) -> StoredRun:
    """The run ``run_id`` of the store, as its results document."""
    row = history.run(run_id)
    if row is None:
        known = [r["run_id"] for r in history.runs()[:3]]
        hint = f" (newest: {', '.join(known)})" if known else " (it holds no run)"
        raise CommandError(f"no run {run_id!r} in {history.path}{hint}; `req2rank runs` lists "
                           "them, --db PATH picks another store")
    try:
        plan = json.loads(row["plan"])
        settings: dict[str, Any] = json.loads(row.get("settings") or "{}")
        stored_summary = row.get("summary")
    except (TypeError, ValueError) as exc:
        raise CommandError(f"{history.path}: run {run_id} is not readable ({exc})") from None
    items = in_plan_order(history.items(run_id), plan.get("item_ids", []))
    finished_at = row.get("finished_at") or max((i.finished_at for i in items), default="") \
        or row["started_at"]
    if stored_summary:
        summary = RunSummary.model_validate_json(stored_summary)
    else:
        summary = summarize_run(items, item_ids=plan.get("item_ids", []),
                                nversion=plan.get("nversion"),
                                wall_time_s=_seconds_between(row["started_at"], finished_at),
                                seed=row["seed"])
        summary = summary.model_copy(update={"warnings": [
            *summary.warnings, (f"run {run_id} did not finish (still running, or killed): this "
                                f"summary is recomputed from its {len(items)} stored items, "
                                "without gates")]})
        ranking = rank_items(items, seed=row["seed"]) if settings.get("models") else None
        if ranking is not None:  # a run of several models, ranked as its end would have
            summary = summary.model_copy(update={
                "ranking": ranking_section(ranking, seed=row["seed"])})
    document = ResultsDocument(
        run=RunInfo(
            id=run_id, seed=row["seed"], model=row["model"], suite=row["suite"],
            judges=_judges(settings), sandbox=row.get("sandbox") or str(settings.get("sandbox", "")),
            isolation=row.get("isolation") or None,
            plugin_version=row.get("plugin_version") or "unknown",
            started_at=row["started_at"], finished_at=finished_at, settings=settings,
        ),
        summary=summary, items=items,
    )
    status = row.get("status") or UNFINISHED
    directory = Path(settings.get("dir") or DEFAULT_DIR) / "runs" / run_id
    results = Path(settings["json"]) if settings.get("json") else directory / "results.json"
    return StoredRun(document, UNFINISHED if status == "running" else status, results,
                     directory / "qa.jsonl")


def _judges(settings: dict[str, Any]) -> list[str]:
    """The run's panel, from its settings (as ``Settings.panel`` says)."""
    try:
        return list(Settings.model_validate(settings).panel())
    except ValueError:
        return list(settings.get("judges") or [])


def _seconds_between(start: str, end: str) -> float:
    try:
        return max(0.0, (datetime.fromisoformat(end) - datetime.fromisoformat(start))
                   .total_seconds())
    except ValueError:
        return 0.0
