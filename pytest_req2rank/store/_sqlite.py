"""The local store: runs and their items in SQLite (sqlite-utils, WAL)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import sqlite_utils

from ..models import ItemResult


class Store:
    """Append-only history of runs. Every finished item is written as it arrives."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.db = sqlite_utils.Database(path)
        self.db.enable_wal()
        self._ensure_schema()

    def _ensure_schema(self) -> None:
        if "runs" not in self.db.table_names():
            self.db["runs"].create(
                {
                    "run_id": str, "started_at": str, "finished_at": str, "model": str,
                    "suite": str, "seed": int, "plan": str, "summary": str, "status": str,
                },
                pk="run_id",
            )
        if "items" not in self.db.table_names():
            self.db["items"].create(
                {
                    "run_id": str, "item_id": str, "dataset": str, "status": str,
                    "pass_ratio": float, "finished_at": str, "result": str,
                },
                pk=("run_id", "item_id"),
                foreign_keys=[("run_id", "runs", "run_id")],
            )
            self.db["items"].create_index(["status"])

    def start_run(self, *, run_id: str, started_at: str, model: str, suite: str, seed: int,
                  plan: dict[str, Any]) -> None:
        self.db["runs"].upsert(
            {
                "run_id": run_id, "started_at": started_at, "finished_at": None, "model": model,
                "suite": suite, "seed": seed, "plan": json.dumps(plan), "summary": None,
                "status": "running",
            },
            pk="run_id",
        )

    def add_item(self, run_id: str, item: ItemResult) -> None:
        self.db["items"].upsert(
            {
                "run_id": run_id, "item_id": item.item_id, "dataset": item.dataset,
                "status": item.status, "pass_ratio": item.pass_ratio,
                "finished_at": item.finished_at, "result": item.model_dump_json(),
            },
            pk=("run_id", "item_id"),
        )

    def finish_run(self, run_id: str, *, finished_at: str, summary: dict[str, Any],
                   status: str = "finished") -> None:
        self.db["runs"].update(
            run_id, {"finished_at": finished_at, "summary": json.dumps(summary), "status": status}
        )

    def items(self, run_id: str) -> list[ItemResult]:
        rows = self.db["items"].rows_where("run_id = ?", [run_id], order_by="finished_at")
        return [ItemResult.model_validate_json(row["result"]) for row in rows]

    def run(self, run_id: str) -> dict[str, Any] | None:
        rows = list(self.db["runs"].rows_where("run_id = ?", [run_id]))
        return rows[0] if rows else None

    def close(self) -> None:
        self.db.close()
