"""What the hub holds back and how it ranks: statistics flags, users' reports and their
resolution by an admin, the leaderboard's pooled ranking and filters."""

from __future__ import annotations

from hub_server import Hub, fresh_nonce, make_items, make_payload, refused


def test_statistics_that_honest_runs_rarely_produce_are_flagged_not_ranked(
        hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        perfect = make_payload(client, items=make_items(scores=[100.0] * 6), model="acme/perfect")
        reply = client.post("/api/submissions", json=perfect).json()
        few = make_payload(client, items=make_items(3), model="acme/perfect")
        reply_few = client.post("/api/submissions", json=few).json()
        board = client.get("/api/leaderboard").json()["rows"]
    assert reply["status"] == "flagged" and "every item scored 100" in reply["flags"]
    assert reply_few["status"] == "flagged" and "only 3 scored items" in reply_few["flags"][0]
    assert all(row["model"] != "acme/perfect" for row in board)


def test_a_score_far_from_the_models_history_is_flagged(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        for _ in range(hub.config.history_min):
            reply = client.post("/api/submissions", json=make_payload(
                client, items=make_items(scores=[30.0, 35.0, 40.0, 30.0, 35.0, 40.0]),
                model="acme/steady")).json()
            assert reply["status"] == "accepted"
        jump = client.post("/api/submissions", json=make_payload(
            client, items=make_items(scores=[95.0, 90.0, 95.0, 90.0, 95.0, 90.0]),
            model="acme/steady")).json()
    assert jump["status"] == "flagged" and "from this model's mean" in jump["flags"][0]


def test_flags_need_a_sign_in_and_an_admin_resolves_them(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        reply = client.post("/api/submissions",
                            json=make_payload(client, model="acme/flagme")).json()
    with hub.client() as anonymous:
        refused(anonymous.post(f"/api/submissions/{reply['id']}/flags", json={"reason": "odd"}),
                 401, "unauthenticated")
    flags = []
    for n in range(hub.config.reports_to_hold):  # 3 users' reports: out of the ranking
        with hub.client(hub.token(f"reporter{n}")) as client:
            flag = client.post(f"/api/submissions/{reply['id']}/flags",
                               json={"reason": "scores look copied"})
            assert flag.status_code == 201, flag.text
            flags.append(flag.json())
            rows = client.get("/api/leaderboard").json()["rows"]
            ranked = any(row["model"] == "acme/flagme" for row in rows)
            assert ranked == (n + 1 < hub.config.reports_to_hold)
    assert [flag["status"] for flag in flags] == ["accepted", "accepted", "flagged"]
    assert flags[-1]["open_reports"] == 3
    with hub.client(hub.token("reporter0")) as client:
        refused(client.post(f"/api/admin/flags/{flags[0]['id']}/resolve",
                            json={"action": "dismiss"}), 403, "not_admin")
    with hub.client(hub.token("admin", admin=True)) as admin:
        resolved = admin.post(f"/api/admin/flags/{flags[0]['id']}/resolve",
                              json={"action": "dismiss", "note": "checked the evidence"}).json()
        assert resolved["status"] == "accepted"
        assert [h["status"] for h in resolved["history"]] == ["accepted", "flagged", "accepted"]
        assert resolved["history"][-1]["actor"] == "admin"
        refused(admin.post(f"/api/admin/flags/{flags[0]['id']}/resolve",
                            json={"action": "uphold"}), 409, "already_resolved")
        upheld = admin.post(f"/api/admin/flags/{flags[1]['id']}/resolve",
                            json={"action": "uphold", "note": "copied"}).json()
        assert upheld["status"] == "removed"


def test_an_admin_can_rank_a_flagged_submission(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        perfect = make_payload(client, items=make_items(scores=[100.0] * 6), model="acme/genius")
        reply = client.post("/api/submissions", json=perfect).json()
    with hub.client(hub.token("admin2", admin=True)) as admin:
        reviewed = admin.post(f"/api/admin/submissions/{reply['id']}/review",
                              json={"action": "accept", "note": "reran it ourselves"}).json()
        rows = admin.get("/api/leaderboard").json()["rows"]
    assert reviewed["status"] == "accepted"
    assert any(row["model"] == "acme/genius" for row in rows)


def test_the_leaderboard_ranks_by_the_pool_of_the_verified_runs(hub: Hub, user: str) -> None:
    """Both verified runs pooled (a model's best run is shown, never ranked on), the
    accepted one pending, not pooled; the former strategies are refused by name."""
    with hub.client(user) as client:
        replies = [client.post("/api/submissions", json=make_payload(
            client, items=make_items(scores=scores), model="acme/strategy")).json()
            for scores in ([50.0, 55.0, 60.0] * 2, [70.0, 75.0, 80.0] * 2, [95.0, 90.0] * 3)]
        hub.verified(replies[0]["id"], replies[1]["id"])
        row = next(r for r in client.get("/api/leaderboard").json()["rows"]
                   if r["model"] == "acme/strategy")
        pooled = client.get("/api/leaderboard?strategy=pooled").json()
        former = [client.get(f"/api/leaderboard?strategy={name}") for name in ("best", "mean")]
    # The pool of the two verified runs' twelve item scores, the third run's not in it.
    assert row["score"] == 65.0 and row["items"] == 12
    assert row["ci_low"] < 65.0 < row["ci_high"]
    assert row["best"] == 75.0 and row["latest"] == 75.0 and row["count"] == 2
    assert row["pending"] == 1 and row["rank"] is not None
    assert pooled["strategy"] == "pooled" and any(r["model"] == "acme/strategy"
                                                  for r in pooled["rows"])
    for answer in former:
        assert answer.status_code == 422 and answer.json()["error"]["code"] == "invalid_request"
        assert "pooled" in answer.json()["error"]["message"]


def test_the_leaderboard_filters_by_complexity(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        hard = [item.model_copy(update={"complexity": "C4"}) for item in make_items()]
        client.post("/api/submissions", json=make_payload(client, items=hard, model="cx/hard"))
        client.post("/api/submissions", json=make_payload(client, model="cx/mixed"))
        c4 = {row["model"] for row in client.get("/api/leaderboard?complexity=C4").json()["rows"]}
        mixed = {row["model"] for row in
                 client.get("/api/leaderboard?complexity=mixed").json()["rows"]}
        page = client.get("/?complexity=C4").text
    assert "cx/hard" in c4 and "cx/mixed" not in c4
    assert "cx/mixed" in mixed and "cx/hard" not in mixed
    assert 'data-model="cx/hard"' in page and 'data-model="cx/mixed"' not in page


def test_a_run_missing_planned_items_is_flagged(hub: Hub, user: str) -> None:
    from hub_server import chained, make_document

    from pytest_req2rank.draws import nonce_seed
    from pytest_req2rank.report import build_summary

    with hub.client(user) as client:
        nonce = fresh_nonce(client)
        items = make_items()
        document = make_document(items, run_id="run-partial", seed=nonce_seed(nonce["nonce"]))
        document = document.model_copy(update={"summary": build_summary(
            items, planned=len(items) + 4, wall_time_s=1.0, seed=document.run.seed)})
        reply = client.post("/api/submissions", json=chained(
            nonce, document.model_dump(mode="json"), items)).json()
    assert reply["status"] == "flagged" and "4 of 10 planned items have no result" in reply["flags"]
