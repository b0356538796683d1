"""The hub's HTML pages: leaderboard (filter, sort, CI), model page, submission page."""

from __future__ import annotations

from hub_server import Hub, make_items, make_payload


def test_the_pages_show_the_ranking_its_intervals_and_statuses(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        ranked = client.post("/api/submissions",
                             json=make_payload(client, model="page/ranked")).json()
        flagged = client.post("/api/submissions", json=make_payload(
            client, items=make_items(scores=[100.0] * 6), model="page/ranked")).json()
        board = client.get("/?strategy=mean&sort=count")
        model = client.get("/models/page/ranked")
        page = client.get(f"/submissions/{flagged['id']}")
        missing = client.get("/submissions/999999")
    assert board.status_code == 200 and 'data-model="page/ranked"' in board.text
    assert '<option value="mean" selected>' in board.text and 'class="ci"' in board.text
    low, high = ranked["ci95"]
    assert f"left: {low}%" in board.text
    assert model.text.count('class="badge accepted"') == 1
    assert model.text.count('class="badge flagged"') == 1
    assert 'id="status">flagged' in page.text and "every item scored 100" in page.text
    assert f"/api/submissions/{flagged['id']}/evidence" in page.text
    assert missing.status_code == 404 and 'id="error">no submission 999999<' in missing.text
