"""Backing up a hub: a consistent copy of its database and its signing key. SQLite's is laid
out as a hub directory (``hub.db``, ``signing-key.pem``) that ``R2R_HUB_DIR`` can point at;
PostgreSQL's is ``pg_dump``'s archive ``hub.dump`` (``pg_restore`` restores it)."""

from __future__ import annotations

import glob
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from sqlalchemy.engine import URL, make_url

from ..errors import Req2RankError
from ._config import HubConfig
from ._database import private_file

DATABASE_NAME = "hub.db"
DUMP_NAME = "hub.dump"
KEY_NAME = "signing-key.pem"


class BackupError(Req2RankError):
    """A backup that cannot be made; ``status`` is the command's exit status."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.message, self.status = message, status


@dataclass(frozen=True)
class Backup:
    database: Path
    """The copy of the database: SQLite's file, or PostgreSQL's ``pg_dump`` archive."""
    key: Path
    submissions: int | None
    """Submissions in the copy (counted in SQLite's; ``None`` for a dump)."""


def back_up(config: HubConfig, destination: Path) -> Backup:
    """Copy ``config``'s database and its signing key (mode 0600) into ``destination``, which
    must not hold a backup already. SQLite: with SQLite's online backup (one consistent
    snapshot, safe while the hub serves: readers do not block its writers). PostgreSQL: with
    ``pg_dump`` (one consistent snapshot too), which must be installed."""
    url = make_url(config.database_url)
    backend = url.get_backend_name()
    if backend not in ("sqlite", "postgresql"):
        raise BackupError(f"backup copies SQLite and PostgreSQL databases; back up this "
                          f"{backend} database with its own tool and copy the signing key "
                          f"{config.key_path}", status=2)
    source = _sqlite_file(url) if backend == "sqlite" else None
    if not config.key_path.is_file():
        raise BackupError(f"no signing key at {config.key_path} (the hub makes it on first "
                          "start); give the hub's R2R_HUB_KEY or R2R_HUB_DIR", status=2)
    copy_name = DATABASE_NAME if backend == "sqlite" else DUMP_NAME
    database, key = destination / copy_name, destination / KEY_NAME
    for path in (database, key):
        if path.exists():
            raise BackupError(f"{path} exists already; back up into an empty directory",
                              status=2)
    write: Callable[[Path], int | None] = (
        partial(_copy_sqlite, source) if source is not None
        else partial(_dump_postgresql, _pg_tool("pg_dump"), url))
    destination.mkdir(parents=True, exist_ok=True)
    submissions = _complete(database, write)
    descriptor = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(config.key_path.read_bytes())
    return Backup(database, key, submissions)


def _complete(target: Path, write: Callable[[Path], int | None]) -> int | None:
    """``write`` into a temporary file next to ``target``, renamed to it once complete."""
    temporary = target.with_name(f".{target.name}.{os.getpid()}.partial")
    temporary.unlink(missing_ok=True)
    private_file(temporary)  # the copy of the database: the owner's only, as the original
    try:
        result = write(temporary)
        temporary.rename(target)
    finally:
        temporary.unlink(missing_ok=True)
    return result


def _sqlite_file(url: URL) -> Path:
    source = Path(url.database or "")
    if not url.database or url.database == ":memory:" or not source.is_file():
        raise BackupError(f"no hub database at {source}; give the hub's --database-url or "
                          "R2R_HUB_DIR", status=2)
    return source


def _copy_sqlite(source: Path, target: Path) -> int:
    try:
        with closing(sqlite3.connect(source, timeout=30)) as live, \
                closing(sqlite3.connect(target)) as copy:
            live.backup(copy)  # every page in one step: one snapshot
            return int(copy.execute("SELECT count(*) FROM submissions").fetchone()[0])
    except sqlite3.Error as exc:
        raise BackupError(f"{source}: {exc}; is it a hub's database?") from None


def _pg_tool(name: str) -> str:
    """PostgreSQL's client tool ``name``: on the PATH, else Debian's newest."""
    found = shutil.which(name) or next(
        iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        raise BackupError(f"backing up PostgreSQL needs {name}, which is not installed "
                          "(Debian: apt install postgresql-client)", status=2)
    return found


def libpq_url(url: URL) -> tuple[str, dict[str, str]]:
    """``url`` as PostgreSQL's own tools take it (no driver name), and the environment that
    gives them its password (kept off their command line, which other users can read)."""
    environment = {"PGPASSWORD": url.password} if url.password else {}
    plain = url.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), environment


def _dump_postgresql(pg_dump: str, url: URL, target: Path) -> None:
    address, secret = libpq_url(url)
    done = subprocess.run([pg_dump, "--format=custom", "--no-owner", f"--file={target}",
                           f"--dbname={address}"], env={**os.environ, **secret},
                          capture_output=True, text=True, check=False)
    if done.returncode:
        lines = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
        raise BackupError(f"pg_dump: {lines[0].removeprefix('pg_dump: ')}")
