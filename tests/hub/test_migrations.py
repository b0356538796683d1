"""The hub's migrations: down and up again, with the data kept; the submissions' breakdowns
recomputed by the migration that adds them."""

from __future__ import annotations

import json
from pathlib import Path

from alembic import command
from hub_server import make_items, make_payload, running_hub
from sqlalchemy import create_engine, text

from pytest_req2rank.hub import migrate
from pytest_req2rank.hub._database import alembic_config

SKILLS = [["math"]] * 3 + [["strings"]] * 3


def test_the_breakdown_migration_fills_in_the_submissions_kept_before(tmp_path: Path) -> None:
    with running_hub(tmp_path) as hub, hub.client(hub.token("migrated")) as client:
        submitted = client.post("/api/submissions", json=make_payload(client, items=make_items(
            skills=SKILLS, dimensions={"logic": 5.0}))).json()
        submitted = client.get(f"/api/submissions/{submitted['id']}").json()
    url = hub.config.database_url
    command.downgrade(alembic_config(url), "0003")
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            columns = [row[1] for row in connection.execute(text("PRAGMA table_info(submissions)"))]
            assert "breakdown" not in columns
        migrate(url)
        with engine.connect() as connection:
            kept = connection.execute(text("SELECT breakdown FROM submissions WHERE id = :id"),
                                      {"id": submitted["id"]}).scalar_one()
    finally:
        engine.dispose()
    assert json.loads(kept) == submitted["breakdown"]  # SQLite keeps JSON as text
    assert set(submitted["breakdown"]["skills"]) == {"math", "strings"}
    assert "logic" in submitted["breakdown"]["dimensions"]


def test_the_attempts_migration_keeps_the_answers_of_the_submissions_kept_before(
        tmp_path: Path) -> None:
    """Down to 0004 (no nonce model, no answers) and up again: the kept submission's answers
    are backfilled from its evidence, so a copy of it is refused as a duplicate."""
    with running_hub(tmp_path) as hub, hub.client(hub.token("early")) as client:
        items = make_items()
        kept = client.post("/api/submissions", json=make_payload(client, items=items)).json()
    url = hub.config.database_url
    command.downgrade(alembic_config(url), "0004")
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            tables = {row[0] for row in connection.execute(text(
                "SELECT name FROM sqlite_master WHERE type = 'table'"))}
            assert "submission_answers" not in tables
        migrate(url)
        with engine.connect() as connection:
            answers = connection.execute(text(
                "SELECT count(*) FROM submission_answers WHERE submission_id = :id"),
                {"id": kept["id"]}).scalar_one()
    finally:
        engine.dispose()
    assert answers == len(items)
    with running_hub(tmp_path) as hub, hub.client(hub.token("late")) as client:
        copy = client.post("/api/submissions", json=make_payload(client, items=items))
    assert copy.status_code == 409 and copy.json()["error"]["code"] == "duplicate"
