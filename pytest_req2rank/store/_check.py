"""Checking, before a run, that a path can hold the store — reading it, never changing it.

Plain ``sqlite3``: the check runs on the controller at start, where sqlite-utils (and the
numpy it may import) would delay every worker's start.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from pathlib import Path

from ..errors import ConfigurationError, Req2RankError

BUSY_TIMEOUT_S = 60.0
REQUIRED_COLUMNS = {
    "runs": ("run_id", "plan"),
    "items": ("run_id", "item_id", "result"),
    "llm_cache": ("key", "completion"),
}
"""What another program's database lacks: the columns the store reads."""
MAX_REASON_CHARS = 200
_LEAVE = "the file is left as it is"


class StoreError(Req2RankError, RuntimeError):
    """The store failed while the run was writing to it."""


class StoreUnusable(ConfigurationError, ValueError):
    """The store's path cannot hold the store; the message says what, where and how to fix."""


def check_store(path: Path) -> None:
    """Raise :class:`StoreUnusable` (one line) unless ``path`` can hold the store: a new file
    in a writable directory, or a req2rank store this process can write to. The file is only
    read (the write lock is taken and given back): a file that is not a store stays as it was."""
    if path.is_dir():
        raise StoreUnusable(f"{path}: is a directory; the store is a file, e.g. {path / 'req2rank.db'}")
    problem = directory_problem(path.parent)
    if problem:
        raise StoreUnusable(f"{path}: its directory {problem}; pass a path in a writable directory")
    if not path.exists():
        return
    try:
        os.close(os.open(path, os.O_RDWR))  # SQLite would quietly open a read-only file read-only
    except OSError as exc:
        raise StoreUnusable(f"{path}: cannot be written ({exc.strerror or exc}); make it "
                            "writable, or pass another path") from None
    try:
        connection = sqlite3.connect(f"{path.absolute().as_uri()}?mode=rw", uri=True,
                                     timeout=BUSY_TIMEOUT_S, isolation_level=None)
    except sqlite3.Error as exc:
        raise StoreUnusable(f"{path}: cannot be opened for writing ({exc}); {_LEAVE}") from None
    try:
        _check_tables(connection, path)
        connection.execute("BEGIN IMMEDIATE")  # fails on a read-only file, directory or mount
        connection.execute("ROLLBACK")
    except sqlite3.DatabaseError as exc:
        raise StoreUnusable(_describe(path, exc)) from None
    finally:
        connection.close()


def _check_tables(connection: sqlite3.Connection, path: Path) -> None:
    tables = {row[0] for row in
              connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if tables and "runs" not in tables:
        shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise StoreUnusable(
            f"{path}: an SQLite database, but not a req2rank store (its tables: {shown}); "
            f"pass another path; {_LEAVE}"
        )
    for table, required in REQUIRED_COLUMNS.items():
        if table not in tables:
            continue
        columns = {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
        missing = [column for column in required if column not in columns]
        if missing:
            raise StoreUnusable(
                f"{path}: not a req2rank store (its table {table!r} has no column "
                f"{missing[0]!r}); pass another path; {_LEAVE}"
            )


def _describe(path: Path, exc: sqlite3.DatabaseError) -> str:
    text = " ".join(str(exc).split())  # SQLite may quote a schema, line breaks and all
    if len(text) > MAX_REASON_CHARS:
        text = text[: MAX_REASON_CHARS - 3] + "..."
    if "not a database" in text:
        return f"{path}: not an SQLite database ({text}); pass another path; {_LEAVE}"
    if "malformed" in text or "corrupt" in text:
        return (f"{path}: the SQLite database is corrupt ({text}); pass another path (and "
                f"recover what it holds with: sqlite3 {path} .recover | sqlite3 NEW.db); {_LEAVE}")
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return (f"{path}: cannot be written ({text}); make it and its directory writable, "
                "or pass another path")
    if "locked" in text:
        return (f"{path}: locked by another process for {BUSY_TIMEOUT_S:.0f} s ({text}); "
                "wait for it, or pass another path")
    return f"{path}: cannot be used as the store ({text}); pass another path; {_LEAVE}"


def directory_problem(directory: Path) -> str | None:
    """Why no file can be created in ``directory`` (created if missing), or None when one can.
    Leaves no file behind; works for root too, whom permission bits do not stop."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        culprit = f" ({exc.filename})" if exc.filename and str(exc.filename) != str(directory) else ""
        return f"{directory} cannot be created: {exc.strerror or exc}{culprit}"
    try:
        handle, probe = tempfile.mkstemp(dir=directory, prefix=".r2r-write-check-")
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:
        return f"{directory} is not writable: {exc.strerror or exc}"
    return None
