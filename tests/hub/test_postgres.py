"""The hub on PostgreSQL: the same migrations, submissions, limits and leaderboard."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from hub_server import (  # noqa: F401
    Hub,
    fresh_nonce,
    make_items,
    make_payload,
    postgres_url,
    running_hub,
)
from sqlalchemy import create_engine, inspect, text

from pytest_req2rank.hub import migrate
from pytest_req2rank.hub._database import alembic_config
from pytest_req2rank.hub._tables import Base

pytestmark = pytest.mark.slow  # a PostgreSQL server of its own


@pytest.fixture(scope="module")
def pg_hub(postgres_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:  # noqa: F811
    with running_hub(Path(tmp_path_factory.mktemp("pg-hub")), database_url=postgres_url) as hub:
        yield hub


def test_the_migrations_make_the_models_tables(pg_hub: Hub) -> None:
    engine = create_engine(pg_hub.config.database_url)
    try:
        tables = set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
    assert set(Base.metadata.tables) | {"alembic_version"} == tables


def test_a_run_is_ranked_and_its_nonce_not_replayed(pg_hub: Hub) -> None:
    with pg_hub.client(pg_hub.token("pg-user")) as client:
        nonce = fresh_nonce(client, "pg/model")
        payload = make_payload(client, nonce=nonce)
        accepted = client.post("/api/submissions", json=payload)
        again = client.post("/api/submissions", json=payload)
        replay = client.post("/api/submissions", json=make_payload(client, nonce=nonce))
        rows = client.get("/api/leaderboard").json()["rows"]
    assert accepted.status_code == 201 and accepted.json()["status"] == "accepted"
    assert again.status_code == 200 and again.json()["id"] == accepted.json()["id"]
    assert replay.json()["error"]["code"] == "nonce_used"
    assert [row["model"] for row in rows] == ["pg/model"]


def test_the_daily_limit_counts_by_the_hubs_clock(pg_hub: Hub) -> None:
    with pg_hub.client(pg_hub.token("pg-busy")) as client:
        for _ in range(pg_hub.config.daily_submissions):
            assert client.post("/api/submissions", json=make_payload(client)).status_code == 201
        refused = client.post("/api/submissions", json=make_payload(client))
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "daily_limit"


def test_the_breakdown_migration_runs_on_postgresql(postgres_url: str,  # noqa: F811
                                                    tmp_path: Path) -> None:
    """Down to the tables before it and up again, on a database of its own: the kept
    submission's breakdown is computed again from its results."""
    import psycopg  # the hub extra's driver

    server = postgres_url.split("@", 1)[1].split("/", 1)[0]
    host, port = server.split(":")
    with psycopg.connect(f"host={host} port={port} user=postgres dbname=postgres",
                         autocommit=True) as connection:
        connection.execute("DROP DATABASE IF EXISTS r2r_migrations")
        connection.execute("CREATE DATABASE r2r_migrations")
    url = postgres_url.rsplit("/", 1)[0] + "/r2r_migrations"
    with running_hub(tmp_path, database_url=url) as hub, hub.client(hub.token("pg-m")) as client:
        submitted = client.post("/api/submissions", json=make_payload(client, items=make_items(
            skills=[["math"]] * 3 + [["strings"]] * 3, dimensions={"logic": 5.0}))).json()
        submitted = client.get(f"/api/submissions/{submitted['id']}").json()
    command.downgrade(alembic_config(url), "0003")
    migrate(url)
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            kept = connection.execute(text("SELECT breakdown FROM submissions")).scalar_one()
    finally:
        engine.dispose()
    assert kept == submitted["breakdown"] and set(kept["skills"]) == {"math", "strings"}
