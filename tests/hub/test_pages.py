"""The hub's HTML pages: leaderboard (filter, sort, CI), model page, submission page."""

from __future__ import annotations

from hub_server import Hub, make_items, make_payload
from sqlalchemy import event

from pytest_req2rank.hub._board import leaderboard
from pytest_req2rank.hub._submissions import record_status
from pytest_req2rank.hub._tables import Submission


def test_the_pages_show_the_ranking_its_intervals_and_statuses(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        ranked = client.post("/api/submissions",
                             json=make_payload(client, model="page/ranked")).json()
        flagged = client.post("/api/submissions", json=make_payload(
            client, items=make_items(scores=[100.0] * 6), model="page/ranked")).json()
        pending = client.get("/?sort=count").text.split('data-model="page/ranked"', 1)[1]
        hub.verified(ranked["id"])
        board = client.get("/?sort=count")
        rows = client.get("/api/leaderboard", params={"sort": "count"}).json()["rows"]
        model = client.get("/models/page/ranked")
        page = client.get(f"/submissions/{flagged['id']}")
        missing = client.get("/submissions/999999")
    assert "not verified yet" in pending.split("</tr>", 1)[0]
    assert board.status_code == 200 and 'data-model="page/ranked"' in board.text
    assert '<option value="count" selected>' in board.text and 'class="ci"' in board.text
    # The pool's interval, the hub's own bootstrap: near the run's, not equal to it (the
    # run's bootstrap is seeded by the run, the pool's by the pooled scores).
    pooled = next(row for row in rows if row["model"] == "page/ranked")
    assert f'<rect class="range" x="{pooled["ci_low"]}"' in board.text
    assert abs(pooled["ci_low"] - ranked["ci95"][0]) < 5 and pooled["count"] == 1
    assert model.text.count('class="badge verified"') == 1
    assert model.text.count('class="badge flagged"') == 1
    attempts = model.text.split('id="attempts"', 1)[1]
    assert '<td class="num">2</td>' in attempts.split("</tr>", 2)[1]  # 2 attempts, both sent
    assert 'id="status">flagged' in page.text and "every item scored 100" in page.text
    assert f"/api/submissions/{flagged['id']}/evidence" in page.text
    assert missing.status_code == 404 and 'id="error">no submission 999999<' in missing.text


SKILLS = [["math"]] * 3 + [["strings"]] * 3


def test_the_leaderboard_ranks_by_skill_and_dimension_with_status_badges(hub: Hub) -> None:
    runs = {"filters/a": ([90.0, 85.0, 80.0, 40.0, 45.0, 50.0], {"quality": -30.0}),
            "filters/b": ([30.0, 35.0, 40.0, 60.0, 65.0, 70.0], {"quality": 10.0})}
    # An item's score is its panel's: the offsets move it (quality weighs 25 %), so a
    # ranks first overall (57.5 against 52.5), b first on strings and on quality.
    for model, (scores, offsets) in runs.items():
        with hub.client(hub.token(f"{model}-runner")) as client:
            reply = client.post("/api/submissions", json=make_payload(client, model=model, items=(
                make_items(scores=scores, skills=SKILLS, dimensions=offsets))))
            assert reply.status_code == 201
            hub.verified(reply.json()["id"])
    with hub.client(hub.token("filters/a-cheat")) as client:
        held = client.post("/api/submissions", json=make_payload(client, model="filters/a", items=(
            make_items(scores=[100.0] * 6, skills=SKILLS, dimensions={})))).json()
    assert held["status"] == "flagged"

    def order(**query: str) -> list[str]:
        with hub.client() as client:
            rows = client.get("/api/leaderboard", params=query).json()["rows"]
        return [row["model"] for row in rows if row["model"].startswith("filters/")]

    assert order() == ["filters/a", "filters/b"]
    assert order(skill="math") == ["filters/a", "filters/b"]
    assert order(skill="strings") == ["filters/b", "filters/a"]
    assert order(dimension="quality") == ["filters/b", "filters/a"]
    assert order(skill="strings", dimension="quality", sort="model") == ["filters/a", "filters/b"]
    assert order(skill="no-such-skill") == []
    with hub.client() as client:
        rows = {row["model"]: row for row in client.get(
            "/api/leaderboard", params={"skill": "strings", "dimension": "quality"}).json()["rows"]}
        invalid = client.get("/api/leaderboard", params={"dimension": "speed"})
        page = client.get("/", params={"skill": "strings", "dimension": "quality"}).text
    assert rows["filters/a"]["score"] == 15.0 and rows["filters/b"]["score"] == 75.0
    assert rows["filters/a"]["ci_low"] < 15.0 < rows["filters/a"]["ci_high"]
    assert rows["filters/a"]["held_out"] == {"flagged": 1} and rows["filters/a"]["status"] == \
        "verified"
    assert invalid.status_code == 422 and invalid.json()["error"]["code"] == "invalid_request"
    assert '<option value="strings" selected>' in page
    assert '<option value="quality" selected>' in page
    assert 'class="badge held flagged"' in page and "+1 flagged" in page
    a_row = page.split('data-model="filters/a"', 1)[1].split("</tr>", 1)[0]
    assert '<td class="num score">15.00</td>' in a_row and 'class="range"' in a_row


def test_the_model_page_draws_its_history_and_the_submission_page_its_items(hub: Hub) -> None:
    with hub.client(hub.token("history-runner")) as client:
        ids = [client.post("/api/submissions", json=make_payload(
            client, model="history/m", items=make_items(scores=scores, skills=SKILLS,
                                                        dimensions={"security": -5.0}))).json()["id"]
            for scores in ([60.0, 65.0, 70.0] * 2, [70.0, 75.0, 80.0] * 2)]
        model = client.get("/models/history/m").text
        page = client.get(f"/submissions/{ids[1]}").text
        evidence = client.get(f"/api/submissions/{ids[1]}/evidence").json()["evidence"]
    assert '<svg class="history"' in model and '<polygon class="band"' in model
    line = model.split('<polyline class="line" points="', 1)[1].split('"', 1)[0].split()
    assert len(line) == 2 and float(line[0].split(",")[1]) > float(line[1].split(",")[1])
    assert all(f'href="/submissions/{i}"' in model for i in ids)
    assert page.count('<tr data-item="') == 6 and "over 6 items" in page and '<tr data-skill="math">' in page
    assert '<tr data-dimension="security">' in page and 'id="reverify"' in page
    assert f'<span id="entries">{len(evidence)}</span>' in page
    assert f'<code id="head">{evidence[-1]["hash"]}</code>' in page


def test_statuses_set_by_the_replay_show_as_badges_and_in_the_replay_section(hub: Hub) -> None:
    with hub.client(hub.token("replayed-runner")) as client:
        ids = [client.post("/api/submissions", json=make_payload(
            client, model=f"replayed/{name}")).json()["id"] for name in ("ok", "bad", "bad")]
    with hub.app.state.sessions() as session:
        for submission_id, status, reason in (
                (ids[0], "verified", "replayed 6 items: all match"),
                (ids[1], "disputed", "item dynamic/R2: status wrong_answer, replay success")):
            submission = session.get(Submission, submission_id)
            record_status(session, submission, status, reason, "reverify")
            submission.reverification = {"status": status, "replays": [
                {"kind": "answers", "status": status, "reasons": [reason], "items": [
                    {"item_id": "dynamic/R2", "claimed_status": "wrong_answer",
                     "replayed_status": "success" if status == "disputed" else "wrong_answer",
                     "claimed_pass_ratio": 0.75, "replayed_pass_ratio": 1.0,
                     "claimed_score": 70.0, "replayed_score": None}]},
                {"kind": "model", "status": "unverifiable", "reasons": ["no model access"],
                 "items": []}]}
        session.commit()
    with hub.client() as client:
        rows = {row["model"]: row for row in client.get("/api/leaderboard").json()["rows"]}
        board = client.get("/").text
        verified = client.get(f"/submissions/{ids[0]}").text
        disputed = client.get(f"/submissions/{ids[1]}").text
    assert rows["replayed/ok"]["status"] == "verified"
    assert rows["replayed/bad"]["held_out"] == {"disputed": 1}
    ok_row = board.split('data-model="replayed/ok"', 1)[1].split("</tr>", 1)[0]
    assert 'class="badge verified"' in ok_row
    assert "+1 disputed" in board.split('data-model="replayed/bad"', 1)[1].split("</tr>", 1)[0]
    assert "replayed 6 items: all match" in verified.split('id="reverify"', 1)[1]
    assert "status wrong_answer, replay success" in disputed.split('id="reverify"', 1)[1]
    replay = disputed.split('id="reverification"', 1)[1].split('id="reverify"', 1)[0]
    assert "Its answers graded again" in replay and "wrong_answer / success" in replay
    assert "0.75 / 1.00" in replay and "70.0 / n/a" in replay
    assert 'class="badge unverifiable"' in replay and "no model access" in replay


def test_page_errors_are_pages_and_api_errors_json(hub: Hub) -> None:
    with hub.client() as client:
        invalid = client.get("/", params={"dimension": "speed"})
        unknown = client.get("/no/such/page")
        api_unknown = client.get("/api/no-such-thing")
        wrong_method = client.delete("/signin")
    assert invalid.status_code == 422 and 'id="error">query.dimension:' in invalid.text
    assert unknown.status_code == 404 and 'id="error">no such page: /no/such/page<' in unknown.text
    assert api_unknown.status_code == 404 and api_unknown.json() == {"detail": "Not Found"}
    assert wrong_method.status_code == 405 and "DELETE is not how this page is used" in \
        wrong_method.text


def test_the_leaderboard_reads_the_submissions_in_one_query_whatever_their_number(
        hub: Hub) -> None:
    """Not one query per submission (a deferred column read row by row): the submissions,
    then the held-out counts, then the attempts; and the first read of a leaderboard version
    (its verified submissions) reads their scores per requirement, in one query more."""
    with hub.client(hub.token("queries-runner")) as client:
        for _ in range(3):
            client.post("/api/submissions", json=make_payload(client, model="queries/m", items=(
                make_items(skills=SKILLS, dimensions={}))))
    statements: list[str] = []

    def count(_conn, _cursor, statement, *_args) -> None:  # type: ignore[no-untyped-def]
        statements.append(statement)

    event.listen(hub.app.state.engine, "before_cursor_execute", count)
    try:
        with hub.app.state.sessions() as session:
            for query in ({}, {"skill": "math"}, {"dimension": "logic"}):
                for reads in ((3, 4), (3,)):  # the version's ranking is kept once computed
                    statements.clear()
                    rows = leaderboard(session, **query).rows
                    assert any(row["model"] == "queries/m" for row in rows)
                    assert len(statements) in reads, (query, statements)
    finally:
        event.remove(hub.app.state.engine, "before_cursor_execute", count)
