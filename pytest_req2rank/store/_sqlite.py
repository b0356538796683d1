"""The local store: runs, their items, their pass@k, a run of several models' ranking and
the LLM response cache, in SQLite (sqlite-utils, WAL).

Several processes (the controller and every xdist worker) use one file at once:
WAL lets readers and one writer work together and the busy timeout makes a
writer wait for another instead of failing. Within a process, the items evaluated ahead of
pytest and the judges of an item use one store from several threads: a lock serializes its
connection.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from ..models import ItemResult

BUSY_TIMEOUT_S = 60.0
LOCKED_RETRY_S = 0.05
RANKING_COLUMNS: dict[str, type] = {
    "run_id": str, "model": str, "position": int, "rank": int, "rank_low": int,
    "rank_high": int, "rank_group": int, "score": float, "score_low": float,
    "score_high": float, "diff_to_leader": float, "diff_low": float, "diff_high": float,
    "requirements": int, "paired": int, "level": float,
}
"""The ``rankings`` table: one row per model of a ranked run (results JSON ``summary.ranking``;
``position`` 1 is the leader, ``rank_group`` the row's ``group``)."""
PASS_AT_K_TABLE = (
    "CREATE TABLE pass_at_k (run_id TEXT, model TEXT, dataset TEXT, k INTEGER, value FLOAT, "
    "tasks INTEGER, samples INTEGER, correct INTEGER, PRIMARY KEY (run_id, model, dataset, k), "
    "FOREIGN KEY (run_id) REFERENCES runs(run_id))")
"""The ``pass_at_k`` table: one row per model, dataset and k of a finished run (``model``: the
run's model, or in a run of several models each of them, from ``summary.by_model``)."""
_PASS_AT_K_INSERT = ("INSERT INTO pass_at_k VALUES (:run_id, :model, :dataset, :k, :value, "
                     ":tasks, :samples, :correct)")


def pass_at_k_rows(run_id: str, model: str, summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``pass_at_k`` rows of a run's summary (a results JSON ``summary``): the pass@k of
    ``model`` (the run's), or in a run of several models each model's own, never pooled."""
    by_model = summary.get("by_model")
    own = ({name: figures.get("pass_at_k") or {} for name, figures in by_model.items()}
           if by_model else {model: summary.get("pass_at_k") or {}})
    return [{"run_id": run_id, "model": name, "dataset": dataset,
             "k": int(key.removeprefix("pass@")), "value": value, "tasks": report["tasks"],
             "samples": report["samples"], "correct": report["correct"]}
            for name, passes in own.items() for dataset, report in passes.items()
            for key, value in report["values"].items()]


def ranking_rows(run_id: str, summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``rankings`` rows of a run's summary (a results JSON ``summary``); none without a
    ranking."""
    ranking = summary.get("ranking")
    if not ranking:
        return []
    return [{"run_id": run_id, "model": row["model"], "position": position,
             "rank": row["rank"], "rank_low": row["rank_low"], "rank_high": row["rank_high"],
             "rank_group": row["group"], "score": row["score"], "score_low": row["score_low"],
             "score_high": row["score_high"], "diff_to_leader": row["diff_to_leader"],
             "diff_low": row["diff_low"], "diff_high": row["diff_high"],
             "requirements": row["requirements"], "paired": int(ranking["paired"]),
             "level": ranking["level"]}
            for position, row in enumerate(ranking["models"], start=1)]


class Store:
    """History of runs. Every finished item and every model answer is written as it arrives."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.RLock()
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                                     check_same_thread=False)
        self.db = sqlite_utils.Database(connection)
        self._prepare()

    def _prepare(self) -> None:
        """Switch to WAL and create the tables. Switching the journal mode does not wait on the
        busy timeout, so processes opening a new store at the same moment retry."""
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                self.db.enable_wal()
                # WAL + NORMAL: a commit survives the process crashing (not a power cut)
                # without an fsync per item.
                self.db.execute("PRAGMA synchronous=NORMAL")
                self._ensure_schema()
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(LOCKED_RETRY_S)

    def _ensure_schema(self) -> None:
        tables = set(self.db.table_names())
        if "runs" not in tables:
            self.db.table("runs").create(
                {
                    "run_id": str, "started_at": str, "finished_at": str, "model": str,
                    "suite": str, "seed": int, "plan": str, "settings": str, "summary": str,
                    "status": str, "isolation": str, "sandbox": str, "plugin_version": str,
                },
                pk="run_id",
                if_not_exists=True,
            )
        else:
            columns = self.db.table("runs").columns_dict
            for column in ("settings", "isolation", "sandbox", "plugin_version"):
                if column not in columns:
                    self.db.table("runs").add_column(column, str)
        if "items" not in tables:
            self.db.table("items").create(
                {
                    "run_id": str, "item_id": str, "dataset": str, "status": str,
                    "pass_ratio": float, "score": float, "finished_at": str, "result": str,
                    "task_id": str, "sample": int,
                },
                pk=("run_id", "item_id"),
                foreign_keys=[("run_id", "runs", "run_id")],
                if_not_exists=True,
            )
            self.db.table("items").create_index(["status"], if_not_exists=True)
        else:
            columns = self.db.table("items").columns_dict
            for column, kind in (("score", float), ("task_id", str), ("sample", int)):
                if column not in columns:
                    self.db.table("items").add_column(column, kind)
        if "pass_at_k" not in tables:
            self.db.execute(PASS_AT_K_TABLE.replace("TABLE", "TABLE IF NOT EXISTS", 1))
        elif "model" not in self.db.table("pass_at_k").columns_dict:
            self._migrate_pass_at_k()
        if "rankings" not in tables:
            self.db.table("rankings").create(
                RANKING_COLUMNS, pk=("run_id", "model"),
                foreign_keys=[("run_id", "runs", "run_id")], if_not_exists=True)
            self._fill_rankings()
        if "submissions" not in tables:
            self.db.table("submissions").create(
                {"run_id": str, "hub_url": str, "nonce": str, "payload": str, "status": str,
                 "url": str, "receipt": str, "message": str, "updated_at": str},
                pk="run_id",
                foreign_keys=[("run_id", "runs", "run_id")],
                if_not_exists=True,
            )
        if "llm_cache" not in tables:
            self.db.table("llm_cache").create(
                {"key": str, "model": str, "created_at": str, "completion": str},
                pk="key",
                if_not_exists=True,
            )

    def _fill_rankings(self) -> None:
        """A store of an earlier version: its finished ranked runs' rows, from their summaries
        (every ranked run keeps its ranking in its summary)."""
        rows = []
        for run in self.db.execute("SELECT run_id, summary FROM runs WHERE summary LIKE ?",
                                   ['%"ranking"%']).fetchall():
            try:
                rows += ranking_rows(run[0], json.loads(run[1]))
            except (ValueError, KeyError, TypeError):
                continue  # a summary this version cannot read keeps its run, unranked
        self.db.table("rankings").insert_all(rows, pk=("run_id", "model"), replace=True)

    def _migrate_pass_at_k(self) -> None:
        """A store of an earlier version kept one pooled row per dataset and k: it gains the
        ``model`` column, and a run of several models its models' own rows (from its summary)
        instead of the pooled ones. In one transaction, checked again inside it: another
        process may have migrated the store first."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            if "model" not in self.db.table("pass_at_k").columns_dict:
                self.db.execute("ALTER TABLE pass_at_k RENAME TO pass_at_k_pooled")
                self.db.execute(PASS_AT_K_TABLE)
                rows: list[dict[str, Any]] = []
                for run_id, model, summary in self.db.execute(
                        "SELECT run_id, model, summary FROM runs WHERE summary LIKE ?",
                        ['%"by_model"%']).fetchall():
                    try:
                        rows += pass_at_k_rows(run_id, model, json.loads(summary))
                    except (ValueError, KeyError, TypeError, AttributeError):
                        continue  # a summary this version cannot read keeps its pooled rows
                ranked = {row["run_id"] for row in rows}
                self.db.execute(
                    "INSERT INTO pass_at_k SELECT p.run_id, coalesce(r.model, ''), p.dataset, "
                    "p.k, p.value, p.tasks, p.samples, p.correct FROM pass_at_k_pooled p "
                    "LEFT JOIN runs r ON r.run_id = p.run_id")
                for run_id in ranked:
                    self.db.execute("DELETE FROM pass_at_k WHERE run_id = ?", [run_id])
                self.db.conn.executemany(_PASS_AT_K_INSERT, rows)
                self.db.execute("DROP TABLE pass_at_k_pooled")
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def start_run(self, *, run_id: str, started_at: str, model: str, suite: str, seed: int,
                  plan: dict[str, Any], settings: dict[str, Any] | None = None,
                  isolation: str | None = None, sandbox: str | None = None,
                  plugin_version: str | None = None) -> None:
        """Record a run as running (again, when it is resumed); ``isolation`` is the sandbox's
        isolation level, ``sandbox`` its description, ``plugin_version`` the writer's."""
        existing = self.run(run_id)
        self.db.table("runs").upsert(
            {
                "run_id": run_id,
                "started_at": existing["started_at"] if existing else started_at,
                "finished_at": None, "model": model, "suite": suite, "seed": seed,
                "plan": json.dumps(plan), "settings": json.dumps(settings or {}),
                "summary": None, "status": "running", "isolation": isolation,
                "sandbox": sandbox, "plugin_version": plugin_version,
            },
            pk="run_id",
        )

    def add_item(self, run_id: str, item: ItemResult) -> None:
        # Plain SQL: sqlite-utils' upsert inspects the table's schema on every call.
        with self._lock:
            self.db.execute(
                "INSERT INTO items (run_id, item_id, dataset, status, pass_ratio, score, "
                "finished_at, result, task_id, sample) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (run_id, item_id) DO UPDATE SET dataset = excluded.dataset, "
                "status = excluded.status, pass_ratio = excluded.pass_ratio, "
                "score = excluded.score, finished_at = excluded.finished_at, "
                "result = excluded.result, task_id = excluded.task_id, sample = excluded.sample",
                [run_id, item.item_id, item.dataset, item.status, item.pass_ratio, item.score,
                 item.finished_at, item.model_dump_json(), item.task_id, item.sample],
            )

    def finish_run(self, run_id: str, *, finished_at: str, summary: dict[str, Any],
                   status: str = "finished") -> None:
        """Record the run's end and its summary; the summary's pass@k (results JSON
        ``summary.pass_at_k``, in a run of several models each model's of ``summary.by_model``)
        also goes to the ``pass_at_k`` table, one row per model, dataset and k, and its ranking
        (``summary.ranking``) to the ``rankings`` table, one row per model."""
        with self._lock:
            self.db.table("runs").update(
                run_id, {"finished_at": finished_at, "summary": json.dumps(summary),
                         "status": status}
            )
            run = self.run(run_id)
            self.db.execute("DELETE FROM pass_at_k WHERE run_id = ?", [run_id])
            self.db.conn.executemany(
                _PASS_AT_K_INSERT, pass_at_k_rows(run_id, run["model"] if run else "", summary))
            self.db.execute("DELETE FROM rankings WHERE run_id = ?", [run_id])
            self.db.table("rankings").insert_all(ranking_rows(run_id, summary))

    def pass_at_k(self, run_id: str) -> dict[str, dict[int, float]]:
        """The pass@k of a finished run of one model: ``{dataset: {k: value}}`` (empty for a
        run of several models: :meth:`pass_at_k_by_model` has each model's)."""
        run = self.run(run_id)
        return self.pass_at_k_by_model(run_id).get(run["model"] if run else "", {})

    def pass_at_k_by_model(self, run_id: str) -> dict[str, dict[str, dict[int, float]]]:
        """The pass@k of a finished run per model: ``{model: {dataset: {k: value}}}``, the
        run's model alone for a run of one model."""
        found: dict[str, dict[str, dict[int, float]]] = {}
        with self._lock:
            rows = list(self.db.table("pass_at_k").rows_where(
                "run_id = ?", [run_id], order_by="rowid"))
        for row in rows:
            found.setdefault(row["model"], {}).setdefault(row["dataset"], {})[row["k"]] = \
                row["value"]
        return found

    def ranking(self, run_id: str) -> list[dict[str, Any]]:
        """A finished run's ranking rows (the ``rankings`` table), best first; empty for a run
        of one model."""
        with self._lock:
            return list(self.db.table("rankings").rows_where("run_id = ?", [run_id],
                                                             order_by="position"))

    def items(self, run_id: str) -> list[ItemResult]:
        with self._lock:  # a worker's evaluation threads share the store
            rows = list(self.db.table("items").rows_where("run_id = ?", [run_id],
                                                    order_by="finished_at"))
        return [ItemResult.model_validate_json(row["result"]) for row in rows]

    def run(self, run_id: str) -> dict[str, Any] | None:
        rows = list(self.db.table("runs").rows_where("run_id = ?", [run_id]))
        return rows[0] if rows else None

    def save_submission(self, run_id: str, **fields: Any) -> None:
        """Record a run's submission to a hub: ``hub_url``, ``nonce``, ``payload`` (what is
        sent), ``status`` (``pending``, ``failed``, the hub's ``accepted``/``flagged``,
        ``refused``), ``url``, ``receipt`` (the hub's signed receipt) and ``message``; the
        fields given replace the kept ones."""
        row = {key: json.dumps(value) if key in ("payload", "receipt") else value
               for key, value in fields.items()}
        with self._lock:
            self.db.table("submissions").upsert(
                {"run_id": run_id, **row, "updated_at": datetime.now(UTC).isoformat()},
                pk="run_id", alter=False)

    def submission(self, run_id: str) -> dict[str, Any] | None:
        """A run's submission record (``payload`` and ``receipt`` parsed); None: never submitted."""
        with self._lock:
            rows = list(self.db.table("submissions").rows_where("run_id = ?", [run_id]))
        if not rows:
            return None
        row = dict(rows[0])
        for key in ("payload", "receipt"):
            row[key] = json.loads(row[key]) if row.get(key) else None
        return row

    def cache_get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            rows = list(self.db.table("llm_cache").rows_where("key = ?", [key]))
        if not rows:
            return None
        completion: dict[str, Any] = json.loads(rows[0]["completion"])
        return completion

    def cache_put(self, key: str, model: str, completion: dict[str, Any]) -> None:
        with self._lock:
            self.db.table("llm_cache").upsert(
                {"key": key, "model": model, "created_at": datetime.now(UTC).isoformat(),
                 "completion": json.dumps(completion)},
                pk="key",
            )

    def close(self) -> None:
        with self._lock:
            self.db.close()
