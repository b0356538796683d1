"""The leaderboard ranks with intervals: each model's pooled score over its verified runs'
item scores (from their evidence), its CI95, its rank interval and the groups the data cannot
separate; ties shown as ties. On SQLite and on PostgreSQL (a server of the test's own when
PostgreSQL is installed)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from hub_server import (  # noqa: F401 - postgres_url is a fixture
    Hub,
    make_items,
    make_payload,
    postgres_url,
    running_hub,
)
from sqlalchemy import create_engine, event, select

from pytest_req2rank.hub import migrate
from pytest_req2rank.hub._board import leaderboard
from pytest_req2rank.hub._database import alembic_config
from pytest_req2rank.hub._scheduler import rank_new_version
from pytest_req2rank.hub._standings import _compute
from pytest_req2rank.hub._tables import Submission
from pytest_req2rank.models import ItemResult

_databases = itertools.count(1)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def board_hub(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Hub]:
    """A hub of the test's own, on SQLite or on a fresh PostgreSQL database."""
    if request.param == "sqlite":
        with running_hub(tmp_path) as hub:
            yield hub
        return
    import psycopg  # the hub extra's driver

    url: str = request.getfixturevalue("postgres_url")
    server = url.split("@", 1)[1].split("/", 1)[0]
    host, port = server.split(":")
    name = f"r2r_ranking_{next(_databases)}"
    with psycopg.connect(f"host={host} port={port} user=postgres dbname=postgres",
                         autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {name}")
        connection.execute(f"CREATE DATABASE {name}")
    with running_hub(tmp_path, database_url=url.rsplit("/", 1)[0] + f"/{name}") as hub:
        yield hub


def _submit(hub: Hub, model: str, scores: list[float], *, verify: bool = True,
            items: list[ItemResult] | None = None) -> dict[str, Any]:
    """A run of ``model`` with these item scores (each user submits one), verified unless
    said otherwise."""
    with hub.client(hub.token(f"u{next(_databases)}")) as client:
        reply = client.post("/api/submissions", json=make_payload(
            client, model=model, items=items or make_items(scores=scores)))
    assert reply.status_code == 201, reply.text
    if verify:
        hub.verified(reply.json()["id"])
    return dict(reply.json())


def _board(hub: Hub, **query: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    with hub.client() as client:
        reply = client.get("/api/leaderboard", params=query)
    assert reply.status_code == 200, reply.text
    body = reply.json()
    return body["ranking"], {row["model"]: row for row in body["rows"]}


STRONG = [92.0, 88.0, 95.0, 90.0, 85.0, 93.0]
WEAK = [30.0, 35.0, 25.0, 40.0, 28.0, 33.0]


def test_two_clearly_different_models_rank_first_and_second(board_hub: Hub) -> None:
    for scores in (STRONG, [s - 4 for s in STRONG]):
        _submit(board_hub, "rank/strong", scores)
    for scores in (WEAK, [s + 4 for s in WEAK]):
        _submit(board_hub, "rank/weak", scores)
    ranking, rows = _board(board_hub)
    strong, weak = rows["rank/strong"], rows["rank/weak"]
    assert list(rows) == ["rank/strong", "rank/weak"]
    assert (strong["rank"], strong["rank_label"], strong["rank_interval"]) == (1, "1", [1, 1])
    assert (weak["rank"], weak["rank_label"], weak["rank_interval"]) == (2, "2", [2, 2])
    assert not strong["tied"] and not weak["tied"]
    assert ranking["groups"] == [["rank/strong"], ["rank/weak"]]
    # Both runs' items pooled: twelve scores over the six requirements both asked.
    assert strong["score"] == pytest.approx(sum(STRONG) / 6 - 2, abs=0.01)
    assert strong["items"] == 12 and strong["requirements"] == 6 and strong["count"] == 2
    assert strong["ci_low"] < strong["score"] < strong["ci_high"]
    assert strong["diff_to_leader"] == [0.0, 0.0, 0.0]
    diff, low, high = weak["diff_to_leader"]
    assert diff == pytest.approx(weak["score"] - strong["score"], abs=0.02) and low <= diff <= high < 0
    # The synthetic runs ask the same six requirements: the comparison is paired.
    assert ranking["paired"] is True and ranking["basis"].startswith("paired")


def test_two_identical_models_tie(board_hub: Hub) -> None:
    _submit(board_hub, "tie/first", STRONG)
    _submit(board_hub, "tie/a", [60.0, 65.0, 70.0, 55.0, 62.0, 68.0])
    _submit(board_hub, "tie/b", [60.0, 65.0, 70.0, 55.0, 62.0, 68.0])
    _submit(board_hub, "tie/last", WEAK)
    ranking, rows = _board(board_hub)
    assert list(rows) == ["tie/first", "tie/a", "tie/b", "tie/last"]  # a tie: by name
    first, a, b, last = rows.values()
    assert a["score"] == b["score"] and a["ci_low"] == b["ci_low"]
    assert (a["rank"], a["rank_label"], a["tied"]) == (b["rank"], b["rank_label"], b["tied"]) \
        == (2, "2–3", True)
    # In every resample the twins score the same: both take place 2 (1 + the models above).
    assert a["rank_interval"] == b["rank_interval"] == [2, 2]
    assert (first["rank_label"], first["tied"], last["rank_label"], last["tied"]) == \
        ("1", False, "4", False)
    assert ranking["groups"] == [["tie/first"], ["tie/a", "tie/b"], ["tie/last"]]
    with board_hub.client() as client:
        by_name = client.get("/api/leaderboard", params={"sort": "model"}).json()["rows"]
    assert [row["rank_label"] for row in by_name] == ["2–3", "2–3", "1", "4"]  # whatever order


def test_unverified_disputed_and_claimed_scores_never_count(board_hub: Hub) -> None:
    """Only verified runs rank, by the item scores their evidence records: a model's better
    runs that are pending, disputed, unverified or flagged, and a summary edited after the
    checks, move nothing."""
    kept = _submit(board_hub, "held/model", WEAK)
    _submit(board_hub, "held/rival", [70.0, 72.0, 68.0, 75.0, 71.0, 69.0])
    _submit(board_hub, "held/model", STRONG, verify=False)  # pending
    for status in ("disputed", "unverified"):
        other = _submit(board_hub, "held/model", STRONG, verify=False)
        board_hub.sql("UPDATE submissions SET status = :status WHERE id = :id", status=status,
                      id=other["id"])
    flagged = _submit(board_hub, "held/model", [100.0] * 6, verify=False)
    assert flagged["status"] == "flagged"
    only_disputed = _submit(board_hub, "held/gone", STRONG, verify=False)
    board_hub.sql("UPDATE submissions SET status = 'disputed' WHERE id = :id",
                  id=only_disputed["id"])
    # The stored summary figures are not what ranks it.
    board_hub.sql("UPDATE submissions SET overall = 99, ci_low = 98, ci_high = 100 "
                  "WHERE id = :id", id=kept["id"])
    ranking, rows = _board(board_hub)
    model = rows["held/model"]
    assert list(rows) == ["held/rival", "held/model"] and "held/gone" not in rows
    assert model["score"] == pytest.approx(sum(WEAK) / 6, abs=0.01)
    assert (model["count"], model["items"], model["pending"]) == (1, 6, 1)
    assert model["held_out"] == {"disputed": 1, "unverified": 1, "flagged": 1}
    assert (model["rank"], rows["held/rival"]["rank"]) == (2, 1)
    assert ranking["groups"] == [["held/rival"], ["held/model"]]


def _distinct_requirements(scores: list[float], tag: str) -> list[ItemResult]:
    return [item.model_copy(update={"requirement": {"title": f"{tag}-{item.task_id}"}})
            for item in make_items(scores=scores)]


def test_runs_of_different_requirements_are_ranked_unpaired_and_say_so(board_hub: Hub
                                                                       ) -> None:
    _submit(board_hub, "unpaired/a", STRONG, items=_distinct_requirements(STRONG, "a"))
    _submit(board_hub, "unpaired/b", WEAK, items=_distinct_requirements(WEAK, "b"))
    ranking, rows = _board(board_hub)
    assert ranking["paired"] is False and ranking["basis"].startswith("unpaired")
    assert [row["rank"] for row in rows.values()] == [1, 2]
    with board_hub.client() as client:
        page = client.get("/").text
    assert "Ranked unpaired: the models&#39; verified runs answered different requirements" in \
        page


def test_the_page_escapes_model_names_and_shows_ranks_ties_and_intervals(board_hub: Hub
                                                                        ) -> None:
    name = 'acme/<b>bold</b>&"q\''
    _submit(board_hub, "page/first", STRONG)
    tied = _submit(board_hub, "page/tied", [60.0, 65.0, 70.0, 55.0, 62.0, 68.0])
    _submit(board_hub, "page/twin", [60.0, 65.0, 70.0, 55.0, 62.0, 68.0])
    # The hub refuses such a name when it is submitted: one in its database is escaped.
    board_hub.sql("UPDATE submissions SET model = :name WHERE id = :id", name=name,
                  id=tied["id"])
    with board_hub.client() as client:
        page = client.get("/").text
    assert "<b>bold</b>" not in page
    escaped = "acme/&lt;b&gt;bold&lt;/b&gt;&amp;&#34;q&#39;"
    row = page.split(f'data-model="{escaped}"', 1)[1].split("</tr>", 1)[0]
    assert '<td class="num rank">2–3</td>' in row
    assert 'class="badge tied" title="the data cannot separate it from the other models ' \
        'ranked 2–3"' in row
    assert 'the resamples">2</td>' in row  # its rank interval: the twins share place 2
    first = page.split('data-model="page/first"', 1)[1].split("</tr>", 1)[0]
    assert '<td class="num rank">1</td>' in first and "badge tied" not in first
    assert 'class="num rank-interval" title="95% rank interval: the places it takes in 95% of ' \
        'the resamples">1</td>' in first
    assert first.count('class="ci"') == 1


def test_the_ranking_is_seeded_by_the_data_and_kept_per_version(board_hub: Hub) -> None:
    _submit(board_hub, "seeded/a", STRONG)
    _submit(board_hub, "seeded/b", [s - 30 for s in STRONG])
    first, rows = _board(board_hub)
    again, rows_again = _board(board_hub)
    assert (first, rows) == (again, rows_again)
    with board_hub.app.state.sessions() as session:
        runs = {model: [(row_id, head)] for row_id, head, model in session.execute(
            select(Submission.id, Submission.head, Submission.model)
            .where(Submission.status == "verified"))}
        kept = {row_id: scores for row_id, scores in session.execute(
            select(Submission.id, Submission.requirement_scores))}
    computed = _compute(runs, lambda ids: {i: kept[i] for i in ids}, skill=None,
                        dimension=None)  # computed again, not the ranking kept
    assert computed is not None and computed.seed == first["seed"]
    assert {model: place.fields()["rank_interval"] for model, place in computed.models.items()} \
        == {model: row["rank_interval"] for model, row in rows.items()}
    _submit(board_hub, "seeded/b", [s - 29 for s in STRONG])  # a new version: new data
    changed, _ = _board(board_hub)
    assert changed["seed"] != first["seed"]


def test_the_migration_reads_the_kept_submissions_scores_from_their_evidence(
        board_hub: Hub) -> None:
    kept = _submit(board_hub, "migrated/model", STRONG)
    before, rows = _board(board_hub)
    url = board_hub.config.database_url
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            stored = connection.execute(select(Submission.requirement_scores).where(
                Submission.id == kept["id"])).scalar_one()
        command.downgrade(alembic_config(url), "0007")
        migrate(url)
        with engine.connect() as connection:
            again = connection.execute(select(Submission.requirement_scores).where(
                Submission.id == kept["id"])).scalar_one()
    finally:
        engine.dispose()
    assert stored == again and len(again["requirements"]) == 6
    assert sorted(s for r in again["requirements"] for s in r["scores"]) == sorted(STRONG)
    assert _board(board_hub) == (before, rows)


def test_the_reverifier_ranks_a_new_version_before_its_first_reader(board_hub: Hub) -> None:
    """After a round that re-verified runs, the serving process ranks the new version at
    once: the next read of the leaderboard reads no scores per requirement."""
    _submit(board_hub, "warm/a", STRONG)
    _submit(board_hub, "warm/b", WEAK)
    statements: list[str] = []

    def count(_conn, _cursor, statement, *_args) -> None:  # type: ignore[no-untyped-def]
        statements.append(statement)

    rank_new_version(board_hub.app.state.sessions)
    event.listen(board_hub.app.state.engine, "before_cursor_execute", count)
    try:
        with board_hub.app.state.sessions() as session:
            rows = leaderboard(session).rows
    finally:
        event.remove(board_hub.app.state.engine, "before_cursor_execute", count)
    assert [row["rank"] for row in rows] == [1, 2]
    assert not any("requirement_scores" in statement for statement in statements), statements


def test_the_model_page_shows_its_rank_interval_and_group_escaped(board_hub: Hub) -> None:
    name = 'acme/<b>bold</b>&"q\''
    _submit(board_hub, "page/first", STRONG)
    tied = _submit(board_hub, "page/tied", [60.0, 65.0, 70.0, 55.0, 62.0, 68.0])
    _submit(board_hub, "page/twin", [60.0, 65.0, 70.0, 55.0, 62.0, 68.0])
    _submit(board_hub, "page/pending", WEAK, verify=False)
    board_hub.sql("UPDATE submissions SET model = :name WHERE id = :id", name=name,
                  id=tied["id"])
    _, rows = _board(board_hub)
    with board_hub.client() as client:
        first = client.get("/models/page/first").text
        twin = client.get("/models/page/twin").text
        hostile = client.get("/models/" + name.replace("&", "%26").replace('"', "%22")
                             .replace("'", "%27").replace("<", "%3C").replace(">", "%3E")).text
        pending = client.get("/models/page/pending").text
    row = rows["page/first"]
    standing = first.split('<p id="standing">', 1)[1].split("</p>", 1)[0]
    assert standing.startswith('Leaderboard rank <b id="rank">1</b> of 3 · 95% rank interval '
                               '<b id="rank-interval">1</b> · group <b id="group">1</b> · ')
    assert "tied with" not in standing
    assert (f"pooled score {row['score']:.2f} (95% CI {row['ci_low']:.2f}–"
            f"{row['ci_high']:.2f}) over 1 verified run") in standing
    escaped = "acme/&lt;b&gt;bold&lt;/b&gt;&amp;&#34;q&#39;"
    standing = twin.split('<p id="standing">', 1)[1].split("</p>", 1)[0]
    twin_row = rows["page/twin"]
    assert twin_row["rank_label"] == "2–3" and twin_row["rank_interval"] == [2, 2]
    assert '<b id="rank">2–3</b> of 3' in standing
    assert '<b id="rank-interval">2</b>' in standing
    assert f'<b id="group">{twin_row["group"]}</b>' in standing
    assert f'<span id="tied-with">tied with <a href="/models/acme/%3Cb%3Ebold%3C/b%3E%26%22q%27">' \
        f"{escaped}</a></span>" in standing
    assert "<b>bold</b>" not in twin and "<b>bold</b>" not in hostile
    standing = hostile.split('<p id="standing">', 1)[1].split("</p>", 1)[0]
    assert '<b id="rank">2–3</b>' in standing and 'href="/models/page/twin"' in standing
    assert '<p id="standing" class="muted">Not ranked: no verified submission yet' in pending
