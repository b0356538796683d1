"""Backing up a hub: a consistent copy of its SQLite database and its signing key, laid out
as a hub directory (``hub.db``, ``signing-key.pem``) that ``R2R_HUB_DIR`` can point at."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url

from ._config import HubConfig

DATABASE_NAME = "hub.db"
KEY_NAME = "signing-key.pem"


class BackupError(Exception):
    """A backup that cannot be made; ``status`` is the command's exit status."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.message, self.status = message, status


@dataclass(frozen=True)
class Backup:
    database: Path
    key: Path
    submissions: int


def back_up(config: HubConfig, destination: Path) -> Backup:
    """Copy ``config``'s SQLite database with SQLite's online backup (one consistent snapshot,
    safe while the hub serves: readers do not block its writers) and its signing key (mode
    0600) into ``destination``, which must not hold a backup already."""
    url = make_url(config.database_url)
    if url.get_backend_name() != "sqlite":
        raise BackupError(f"backup copies SQLite databases only; back up this "
                          f"{url.get_backend_name()} database with its own tool (PostgreSQL: "
                          f"`pg_dump --format=custom --file=hub.dump DBNAME`) and copy the "
                          f"signing key {config.key_path}", status=2)
    source = Path(url.database or "")
    if not url.database or url.database == ":memory:" or not source.is_file():
        raise BackupError(f"no hub database at {source}; give the hub's --database-url or "
                          "R2R_HUB_DIR", status=2)
    if not config.key_path.is_file():
        raise BackupError(f"no signing key at {config.key_path} (the hub makes it on first "
                          "start); give the hub's R2R_HUB_KEY or R2R_HUB_DIR", status=2)
    database, key = destination / DATABASE_NAME, destination / KEY_NAME
    for path in (database, key):
        if path.exists():
            raise BackupError(f"{path} exists already; back up into an empty directory",
                              status=2)
    destination.mkdir(parents=True, exist_ok=True)
    partial = destination / f".{DATABASE_NAME}.{os.getpid()}.partial"
    try:
        with closing(sqlite3.connect(source, timeout=30)) as live, \
                closing(sqlite3.connect(partial)) as copy:
            live.backup(copy)  # every page in one step: one snapshot
            submissions = copy.execute("SELECT count(*) FROM submissions").fetchone()[0]
        partial.rename(database)  # complete, or not there
    except sqlite3.Error as exc:
        raise BackupError(f"{source}: {exc}; is it a hub's database?") from None
    finally:
        partial.unlink(missing_ok=True)
    descriptor = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(config.key_path.read_bytes())
    return Backup(database, key, int(submissions))
