"""Helpers of the resume tests: a run's store, and a run killed with SIGKILL mid-way."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

KILL_DEADLINE_S = 120


def run_ids(db: Path) -> list[str]:
    """The run ids in a store."""
    with sqlite3.connect(db) as connection:
        return [row[0] for row in connection.execute("select run_id from runs")]


def count_rows(db: Path, table: str) -> int:
    """Rows in ``table``; 0 while the run is still creating the store."""
    with sqlite3.connect(db, timeout=30) as connection:
        try:
            return int(connection.execute(f"select count(*) from {table}").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return 0
            raise


def kill_after(args: Sequence[str], cwd: Path, db: Path, *, finished: int) -> None:
    """Run ``pytest args`` in ``cwd`` and SIGKILL it once the store holds ``finished`` items."""
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", *args], cwd=cwd,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + KILL_DEADLINE_S
    while time.monotonic() < deadline and process.poll() is None:
        if db.exists() and count_rows(db, "items") >= finished:
            break
        time.sleep(0.05)
    assert process.poll() is None, "the run finished before it could be killed"
    process.send_signal(signal.SIGKILL)
    process.wait()
