"""The hub over real HTTP: a consistent run is accepted (and ranked once verified); each forgery
is refused by the check meant for it, with a reason that names what is wrong."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta

import pytest
from hub_server import Hub, fresh_nonce, make_items, make_payload, rechain, refused

from pytest_req2rank.evidence import entry_hash
from pytest_req2rank.hub import submission_digest, verify_receipt


def test_a_consistent_run_is_accepted_ranked_and_receipted(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        payload = make_payload(client, model="acme/ranked")
        response = client.post("/api/submissions", json=payload)
        assert response.status_code == 201, response.text
        reply = response.json()
        assert reply["status"] == "accepted" and reply["flags"] == []
        assert reply["url"] == f"{hub.url}/submissions/{reply['id']}"
        assert reply["overall"] == payload["results"]["summary"]["overall_score"]
        key = client.get("/api/key").json()
        assert verify_receipt(reply["receipt"], key["public_key"])
        forged = {**reply["receipt"], "overall": 100.0}
        assert not verify_receipt(forged, key["public_key"])
        assert reply["receipt"]["head"] == payload["evidence"][-1]["hash"]

        assert reply["receipt"]["submission_sha256"] == submission_digest(payload)
        board = client.get("/api/leaderboard").json()["rows"]
        row = next(row for row in board if row["model"] == "acme/ranked")
        assert row["pending"] == 1 and row["count"] == 0 and row["rank"] is None
        hub.verified(reply["id"])  # as a re-verification that matched
        board = client.get("/api/leaderboard").json()["rows"]
        row = next(row for row in board if row["model"] == "acme/ranked")
        assert row["count"] == 1 and row["best"] == row["score"] == reply["overall"]
        # Its one run's item scores, resampled by requirement under the ranking's own seed.
        assert row["ci_width"] == pytest.approx(row["ci_high"] - row["ci_low"], abs=0.01)
        assert row["ci_low"] < row["score"] < row["ci_high"] and row["items"] == 6
        details = client.get(f"/api/submissions/{reply['id']}").json()
        assert [h["status"] for h in details["history"]] == ["accepted"]
        assert details["evidence_entries"] == len(payload["evidence"])
        assert client.get("/api/models/acme/ranked").json()["submissions"][0]["id"] == reply["id"]
        audit = client.get(f"/api/submissions/{reply['id']}/evidence").json()
        assert audit["evidence"] == payload["evidence"]


def test_a_retry_of_the_same_submission_gets_the_same_answer(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        payload = make_payload(client)
        first = client.post("/api/submissions", json=payload)
        again = client.post("/api/submissions", json=payload)
    assert first.status_code == 201 and again.status_code == 200
    assert again.json()["id"] == first.json()["id"]
    assert again.json()["receipt"] == first.json()["receipt"]


def test_a_replayed_nonce_is_refused(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        nonce = fresh_nonce(client)
        assert client.post("/api/submissions",
                           json=make_payload(client, nonce=nonce)).status_code == 201
        message = refused(client.post("/api/submissions", json=make_payload(client, nonce=nonce)),
                           409, "nonce_used")
    assert "already used" in message


def test_an_expired_nonce_is_refused(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        nonce = fresh_nonce(client)
        hub.sql("UPDATE nonces SET expires_at = :past WHERE value = :value",
                past=datetime.now(UTC) - timedelta(minutes=1), value=nonce["nonce"])
        message = refused(client.post("/api/submissions", json=make_payload(client, nonce=nonce)),
                           410, "nonce_expired")
    assert "fresh nonce" in message


def test_another_users_nonce_is_refused(hub: Hub, user: str) -> None:
    with hub.client(hub.token("owner-of-the-nonce")) as owner:
        nonce = fresh_nonce(owner)
    with hub.client(user) as client:
        refused(client.post("/api/submissions", json=make_payload(client, nonce=nonce)),
                 403, "foreign_nonce")
        unknown = {**nonce, "nonce": "nonce-0-000000000000000000000000"}
        refused(client.post("/api/submissions", json=make_payload(client, nonce=unknown)),
                 400, "unknown_nonce")


def test_only_a_few_nonces_stay_open(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        nonces = [fresh_nonce(client) for _ in range(hub.config.max_open_nonces + 1)]
        refused(client.post("/api/submissions", json=make_payload(client, nonce=nonces[0])),
                 409, "nonce_revoked")
        assert client.post("/api/submissions",
                           json=make_payload(client, nonce=nonces[-1])).status_code == 201


@pytest.mark.parametrize(("field", "edit"), [
    ("summary.overall_score", lambda s: s.update(overall_score=s["overall_score"] + 3)),
    ("summary.ci95.low", lambda s: s["ci95"].update(low=s["ci95"]["low"] + 2)),
    ("summary.items_total", lambda s: s.update(items_total=s["items_total"] - 1)),
])
def test_a_tampered_aggregate_is_refused(hub: Hub, user: str, field: str, edit) -> None:  # type: ignore[no-untyped-def]
    with hub.client(user) as client:
        payload = make_payload(client)
        edit(payload["results"]["summary"])
        edited = refused(client.post("/api/submissions", json=payload), 422, "evidence_mismatch")
        assert "the run entry does not match the summary" in edited
        message = refused(client.post("/api/submissions", json=rechain(payload)), 422,
                          "score_mismatch")  # as a modified client chains it
    assert message.startswith(field) and "the items give" in message


@pytest.mark.parametrize("position", [1, 3, 6])
def test_a_tampered_item_anywhere_is_named(hub: Hub, user: str, position: int) -> None:
    """An item edited in the results (its score) no longer matches its chain entry."""
    with hub.client(user) as client:
        payload = make_payload(client)
        item_id = payload["evidence"][position]["item_id"]
        item = next(i for i in payload["results"]["items"] if i["item_id"] == item_id)
        item["score"] = 99.0
        message = refused(client.post("/api/submissions", json=payload), 422, "evidence_mismatch")
    assert f"entry {position} (item {item_id})" in message and "score" in message


@pytest.mark.parametrize("position", [0, 2, 6])
def test_a_tampered_chain_entry_anywhere_is_named(hub: Hub, user: str, position: int) -> None:
    with hub.client(user) as client:
        payload = make_payload(client)
        payload["evidence"][position]["forged"] = True
        message = refused(client.post("/api/submissions", json=payload), 422, "evidence_mismatch")
    assert f"entry {position}" in message and "hash does not match" in message


def test_a_rehashed_entry_breaks_the_next_link(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        payload = make_payload(client)
        payload["evidence"][2]["score"] = 100.0
        payload["evidence"][2]["hash"] = entry_hash(payload["evidence"][2])
        message = refused(client.post("/api/submissions", json=payload), 422, "evidence_mismatch")
    assert "entry 3" in message and "link" in message


def test_a_reordered_chain_is_refused(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        payload = make_payload(client)
        evidence = payload["evidence"]
        evidence[1], evidence[2] = evidence[2], evidence[1]
        message = refused(client.post("/api/submissions", json=payload), 422, "evidence_mismatch")
    assert "entry 1" in message


def test_a_chain_from_another_nonce_is_refused(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        other = make_payload(client)
        payload = make_payload(client)
        payload["evidence"] = other["evidence"]
        payload["results"]["run"]["id"] = other["results"]["run"]["id"]
        message = refused(client.post("/api/submissions", json=payload), 422, "evidence_mismatch")
    assert "entry 0" in message


def test_a_run_before_its_nonce_was_issued_is_refused(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        early = datetime.now(UTC) - timedelta(hours=1)
        payload = make_payload(client, items=make_items(start=early))
        message = refused(client.post("/api/submissions", json=payload), 422, "timeline")
    assert "outside the nonce's lifetime" in message and "entry 1" in message


def test_items_out_of_order_are_refused(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        items = make_items()
        late = datetime.now(UTC) - timedelta(seconds=1) + timedelta(minutes=1)
        items[0] = items[0].model_copy(update={
            "started_at": late.isoformat(timespec="milliseconds"),
            "finished_at": (late + timedelta(milliseconds=50)).isoformat(timespec="milliseconds")})
        message = refused(client.post("/api/submissions", json=make_payload(client, items=items)),
                           422, "timeline")
    assert "entry 2" in message and "before the item recorded ahead" in message


def test_impossible_stage_durations_are_refused(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        items = make_items()
        items[2] = items[2].model_copy(update={"timings": items[2].timings.model_copy(
            update={"execution_s": 0.0})})
        message = refused(client.post("/api/submissions", json=make_payload(client, items=items)),
                           422, "timeline")
        assert "entry 3" in message and "faster than any sandbox" in message
        items = make_items()
        items[1] = items[1].model_copy(update={"timings": items[1].timings.model_copy(
            update={"total_s": 30.0, "generation_s": 29.0})})
        message = refused(client.post("/api/submissions", json=make_payload(client, items=items)),
                           422, "timeline")
    assert "do not fit its timestamps" in message


def test_more_sandbox_work_than_the_wall_time_allows_is_refused(hub: Hub, user: str) -> None:
    """Items that each say their code ran long, all inside a short run: a worker's sandbox
    executions take turns, whatever the run's concurrency."""
    with hub.client(user) as client:
        start = datetime.now(UTC) - timedelta(seconds=100)
        items = [item.model_copy(update={
            "timings": item.timings.model_copy(update={"total_s": 30.0, "execution_s": 29.0}),
            "started_at": (start + timedelta(seconds=5 * n)).isoformat(timespec="milliseconds"),
            "finished_at": (start + timedelta(seconds=5 * n + 31)).isoformat(
                timespec="milliseconds"),
        }) for n, item in enumerate(make_items())]
        message = refused(client.post("/api/submissions", json=make_payload(client, items=items)),
                           422, "timeline")
    assert "worker main's sandbox executions took 174.0 s in a run of 4 s" in message
    assert "take turns" in message


@pytest.mark.parametrize("isolation", ["namespaces", "rlimits", None])
def test_a_weaker_sandbox_is_refused(hub: Hub, user: str, isolation: str | None) -> None:
    with hub.client(user) as client:
        message = refused(client.post("/api/submissions",
                                       json=make_payload(client, isolation=isolation)),
                           422, "weak_isolation")
    assert "weaker than the default" in message


def test_results_that_break_the_schema_are_refused(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        payload = make_payload(client)
        payload["results"]["items"][0]["status"] = "brilliant"
        message = refused(client.post("/api/submissions", json=payload), 422, "invalid_results")
        assert "items/0/status" in message
        refused(client.post("/api/submissions", json={"nonce": 1}), 422, "invalid_request")


@pytest.mark.parametrize("run", [[], "run-1", 7, None])
def test_results_whose_run_is_not_an_object_are_refused(hub: Hub, user: str, run: object
                                                        ) -> None:
    """Refused by the schema check (it crashed the re-send look-up with a 500 before), and,
    once its nonce was used by a kept run, as a replay of that nonce."""
    with hub.client(user) as client:
        payload = make_payload(client)
        broken = copy.deepcopy(payload)
        broken["results"]["run"] = run
        message = refused(client.post("/api/submissions", json=broken), 422, "invalid_results")
        assert message.startswith("results: not a valid results JSON at run: ")
        assert client.post("/api/submissions", json=payload).status_code == 201
        refused(client.post("/api/submissions", json=broken), 409, "nonce_used")


def test_the_eleventh_submission_of_a_day_is_refused(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        for _ in range(hub.config.daily_submissions):
            assert client.post("/api/submissions", json=make_payload(client)).status_code == 201
        message = refused(client.post("/api/submissions", json=make_payload(client)),
                           429, "daily_limit")
    assert "10 runs today" in message


def test_submitting_needs_a_valid_token(hub: Hub) -> None:
    with hub.client() as anonymous:
        refused(anonymous.post("/api/nonces"), 401, "unauthenticated")
    with hub.client("r2r_not-a-token") as stranger:
        refused(stranger.post("/api/nonces"), 401, "unauthenticated")


def test_the_openapi_description_lists_the_api(hub: Hub) -> None:
    with hub.client() as client:
        paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/nonces", "/api/submissions", "/api/leaderboard",
            "/api/submissions/{submission_id}/flags"} <= set(paths)


def test_unknown_submissions_and_models_are_404(hub: Hub) -> None:
    with hub.client() as client:
        refused(client.get("/api/submissions/999999"), 404, "not_found")
        refused(client.get("/api/models/nobody/none"), 404, "not_found")


def test_the_payload_is_kept_as_sent(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        payload = make_payload(client)
        sent = copy.deepcopy(payload)
        reply = client.post("/api/submissions", json=payload).json()
        audit = client.get(f"/api/submissions/{reply['id']}/evidence").json()
    assert audit["results"] == sent["results"]


def test_a_chain_that_misstates_when_its_nonce_was_issued_is_refused(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        nonce = fresh_nonce(client)
        earlier = {**nonce, "issued_at": "2026-01-01T00:00:00.000+00:00"}
        message = refused(client.post("/api/submissions",
                                       json=make_payload(client, nonce=earlier)),
                           422, "evidence_mismatch")
    assert message.startswith("evidence entry 0: the nonce was issued at")


def test_refusals_are_logged_and_a_user_probing_the_checks_is_stopped(hub: Hub, user: str
                                                                      ) -> None:
    unknown = {"nonce": "nonce-0-000000000000000000000000",
               "issued_at": "2026-01-01T00:00:00.000+00:00"}
    with hub.client(user) as client:
        for _ in range(hub.config.daily_refusals):
            refused(client.post("/api/submissions", json=make_payload(client, nonce=unknown)),
                     400, "unknown_nonce")
        message = refused(client.post("/api/submissions", json=make_payload(client)),
                           429, "refusal_limit")
    assert f"{hub.config.daily_refusals} submissions refused today" in message


def test_items_of_another_model_are_refused(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        items = make_items()
        items[3] = items[3].model_copy(update={"model": "acme/stronger"})
        message = refused(client.post("/api/submissions", json=make_payload(client, items=items)),
                           422, "invalid_results")
    assert "item dynamic/R3 is of model 'acme/stronger'" in message
