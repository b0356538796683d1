"""The database: engine, sessions and migrations (Alembic, one set for SQLite and PostgreSQL)."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import sessionmaker


def make_engine(url: str) -> Engine:
    """An engine for ``url``; a new SQLite file is created readable by the owner only (its
    journal files take its mode), in a directory created when missing, and SQLite waits for
    a writer instead of failing (the API serves requests from several threads)."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:" and not path.startswith("file:"):
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            private_file(Path(path))
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(connection, _record):  # type: ignore[no-untyped-def]
            cursor = connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


def private_file(path: Path) -> None:
    """Create ``path`` empty with mode 0600 unless it exists (whatever the umask)."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    os.close(descriptor)


def session_factory(engine: Engine) -> sessionmaker:  # type: ignore[type-arg]
    return sessionmaker(engine, expire_on_commit=False)


def alembic_config(url: str) -> Config:
    """Alembic's configuration for ``url``, pointing at the migrations shipped in the package."""
    config = Config()
    config.set_main_option("script_location", str(resources.files(__package__) / "migrations"))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def migrate(url: str, revision: str = "head") -> None:
    """Bring the database at ``url`` to ``revision`` (creating it when new)."""
    make_engine(url).dispose()  # creates a SQLite file's directory
    command.upgrade(alembic_config(url), revision)


def now() -> datetime:
    return datetime.now(UTC)


def utc_day(moment: datetime) -> tuple[datetime, str]:
    """The UTC day ``moment`` falls in, for a daily limit: its start, and when the next day
    starts (ISO, to the minute) for the refusal's message."""
    start = moment.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return start, (start + timedelta(days=1)).isoformat(timespec="minutes")


def aware(moment: datetime) -> datetime:
    """A timestamp read back from the database, in UTC (SQLite keeps no time zone)."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
