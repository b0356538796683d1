"""Reading the store's history without changing it: the runs and their items, for looking
back at past runs (``req2rank``). Plain ``sqlite3``, opened read-only."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Self

from ..models import ItemResult
from ._check import BUSY_TIMEOUT_S, StoreUnusable, _check_tables, _describe


class History:
    """A store opened read-only. Raises :class:`StoreUnusable` (one line) when ``path`` is
    no store: missing, a directory, not SQLite, corrupt, or another program's database."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if path.is_dir():
            raise StoreUnusable(f"{path}: is a directory; the store is a file, e.g. "
                                f"{path / 'req2rank.db'}")
        if not path.exists():
            raise StoreUnusable(f"{path}: no store here; pass the store of your runs with "
                                "--db PATH (a run writes .req2rank/req2rank.db, or its --r2r-db)")
        try:
            self._connection = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True,
                                               timeout=BUSY_TIMEOUT_S)
            self._connection.row_factory = sqlite3.Row
            _check_tables(self._connection, path)
            tables = {row[0] for row in self._connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            self._tables = frozenset(tables)
        except sqlite3.DatabaseError as exc:
            raise StoreUnusable(_describe(path, exc)) from None
        if not {"runs", "items"} <= tables:
            self._connection.close()
            raise StoreUnusable(f"{path}: holds no runs yet (an empty database, not a store "
                                "written by a run); pass the store of your runs with --db PATH")

    def runs(self) -> list[dict[str, Any]]:
        """Every run, newest first, with its number of stored items (``items``)."""
        return self._query(
            "SELECT runs.*, (SELECT count(*) FROM items WHERE items.run_id = runs.run_id) "
            "AS items FROM runs ORDER BY started_at DESC, run_id DESC", ())

    def run(self, run_id: str) -> dict[str, Any] | None:
        rows = self._query("SELECT * FROM runs WHERE run_id = ?", (run_id,))
        return rows[0] if rows else None

    def rankings(self) -> dict[str, list[dict[str, Any]]]:
        """Per ranked run (a run of several models that finished), its ``rankings`` rows best
        first. Empty for a store no run of this version has opened yet (it has no such table:
        its runs' summaries hold their rankings)."""
        if "rankings" not in self._tables:
            return {}
        found: dict[str, list[dict[str, Any]]] = {}
        for row in self._query("SELECT * FROM rankings ORDER BY run_id, position", ()):
            found.setdefault(row["run_id"], []).append(row)
        return found

    def items(self, run_id: str) -> list[ItemResult]:
        """The run's stored items, in the order they finished."""
        rows = self._query("SELECT result FROM items WHERE run_id = ? ORDER BY finished_at",
                           (run_id,))
        try:
            return [ItemResult.model_validate_json(row["result"]) for row in rows]
        except ValueError as exc:  # pydantic's ValidationError
            raise StoreUnusable(f"{self.path}: an item of run {run_id} is not a readable result "
                                f"({' '.join(str(exc).split())[:160]})") from None

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _query(self, sql: str, parameters: tuple[Any, ...]) -> list[dict[str, Any]]:
        try:
            return [dict(row) for row in self._connection.execute(sql, parameters)]
        except sqlite3.DatabaseError as exc:
            raise StoreUnusable(_describe(self.path, exc)) from None
