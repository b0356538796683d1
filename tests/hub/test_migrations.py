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


def test_the_reverify_migration_takes_accepted_runs_the_hub_cannot_replay_out_of_the_ranking(
        tmp_path: Path) -> None:
    with running_hub(tmp_path) as hub, hub.client(hub.token("before")) as client:
        kept = {name: client.post("/api/submissions", json=make_payload(
            client, model=f"migrated/{name}")).json()["id"] for name in ("plain", "generated")}
        # As a hub before this migration kept them: both accepted, one's requirements elaborated
        # by a generator model.
        hub.sql("UPDATE submissions SET status = 'accepted', document = json_set(document, "
                "'$.run.settings.generator', 'gpt-4o') WHERE id = :id", id=kept["generated"])
    url = hub.config.database_url
    command.downgrade(alembic_config(url), "0005")
    migrate(url)
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            statuses = dict(connection.execute(text("SELECT id, status FROM submissions")).all())
            history = connection.execute(text(
                "SELECT status, actor, reason FROM status_changes WHERE submission_id = :id "
                "ORDER BY id"), {"id": kept["generated"]}).all()
    finally:
        engine.dispose()
    assert statuses == {kept["plain"]: "accepted", kept["generated"]: "unverified"}
    assert tuple(history[-1]) == ("unverified", "hub", ("the hub cannot replay it: its "
                                  "requirements were elaborated by a generator model, so its "
                                  "seed does not plan them again"))


def test_the_sign_in_migration_closes_duplicate_reports_and_keeps_held_runs(tmp_path: Path
                                                                           ) -> None:
    with running_hub(tmp_path) as hub, hub.client(hub.token("held")) as client:
        submitted = client.post("/api/submissions", json=make_payload(client)).json()
    url = hub.config.database_url
    command.downgrade(alembic_config(url), "0006")
    engine = create_engine(url)
    try:
        with engine.begin() as connection:  # one user's 3 reports held it, as before
            reporter = connection.execute(text("SELECT id FROM users WHERE name = 'held'")
                                          ).scalar_one()
            for _ in range(3):
                connection.execute(text(
                    "INSERT INTO flags (submission_id, user_id, reason, created_at) VALUES "
                    "(:s, :u, 'again', '2026-01-01 00:00:00')"), {"s": submitted["id"],
                                                                  "u": reporter})
            connection.execute(text("UPDATE submissions SET status = 'flagged'"))
        migrate(url)
        with engine.connect() as connection:
            flags = connection.execute(text("SELECT resolution FROM flags ORDER BY id")).all()
            held = connection.execute(text("SELECT status, held_status FROM submissions")).one()
            columns = [row[1] for row in connection.execute(text("PRAGMA table_info(users)"))]
    finally:
        engine.dispose()
    assert [row[0] for row in flags] == [None, "duplicate", "duplicate"]
    assert tuple(held) == ("flagged", "accepted") and "github_id" in columns
