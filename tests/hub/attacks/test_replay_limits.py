"""Attacks on what a replay costs the hub: settings that make it plan thousands of
requirements, ask the model with a huge output budget and a wild temperature on the hub's
own key, or crash it so that the scheduler retries it forever; and the hub's own failures,
retried a bounded number of times. Over HTTP against a served hub."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from forgery import SCHEDULE, forged, wait_for
from hub_server import Hub, hub_process

from pytest_req2rank.hub._reverify import pending_reverification
from pytest_req2rank.providers.fake import read_fake_log, write_fake_script


def _reverified(details: dict) -> bool:
    return details["history"][-1]["actor"] == "reverify"


@pytest.mark.parametrize(("settings", "why"), [
    ({"rounds": 3000}, ("its 3000 rounds are more than the 1000 this hub replays "
                       "(R2R_HUB_REPLAY_MAX_ROUNDS)")),
    ({"rounds": 100_000}, "its 100000 rounds are more than the 1000"),
    ({"samples_per_task": 5000}, ("its 5000 samples per task are more than the 20 this hub "
                                 "replays (R2R_HUB_REPLAY_MAX_SAMPLES)")),
])
def test_a_run_bigger_than_the_hub_replays_is_kept_unverified_and_never_replayed(
        hub: Hub, user: str, settings: dict, why: str) -> None:
    with hub.client(user) as client:
        reply = client.post("/api/submissions", json=forged(client, model="acme/big", **settings))
        assert reply.status_code == 201 and reply.json()["status"] == "unverified", reply.text
        submission = reply.json()["id"]
        assert submission not in [row["latest_submission"] for row in
                                  client.get("/api/leaderboard").json()["rows"]]
        listed = {row["id"]: row["why"] for row in
                  client.get("/api/leaderboard/unverified").json()["rows"]}
        assert listed[submission].startswith(f"the hub cannot replay it: {why}")
    with hub.app.state.sessions() as session:
        assert submission not in pending_reverification(session)


def test_settings_that_crash_a_replay_end_disputed_once(tmp_path: Path) -> None:
    """A ``weights`` value the replay cannot take is the submission's making: disputed, with
    the reason, and not tried again (it was retried by the schedule forever)."""
    crashing = [{"functionality": "heavy"}, ["functionality", 30], {"charm": 100.0}]
    with hub_process(tmp_path / "hub", env=SCHEDULE) as hub, \
            hub.client(hub.token("mallory")) as client:
        submissions = []
        for weights in crashing:
            reply = client.post("/api/submissions", json=forged(
                client, model="r2r/reference", weights=weights))
            assert reply.status_code == 201 and reply.json()["status"] == "accepted", reply.text
            submissions.append(reply.json()["id"])
        outcomes = [wait_for(client, submission, _reverified) for submission in submissions]
        with hub.app.state.sessions() as session:
            assert set(submissions).isdisjoint(pending_reverification(session))
        again = [client.get(f"/api/submissions/{submission}").json() for submission in submissions]
    for details in (*outcomes, *again):
        assert details["status"] == "disputed"
        assert [change["actor"] for change in details["history"]].count("reverify") == 1
        assert details["reverification"]["attempts"] == 1
        reasons = details["reverification"]["replays"][0]["reasons"]
        assert reasons[0].startswith("its settings cannot be replayed: ")
    assert "settings.weights: {'functionality': 'heavy'} is not a mapping of dimensions to " \
           "numbers" in outcomes[0]["history"][-1]["reason"]
    assert "--r2r-weights: " in outcomes[2]["history"][-1]["reason"]


@pytest.mark.slow  # the served hub's two replays, the model's through the scripted provider
def test_the_model_is_asked_within_the_hubs_limits_not_the_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``max_tokens=2000000000`` and ``temperature=2.0`` in a HumanEval run (whose calls use
    the run's budget; the dynamic suite's is the engine's, per complexity): the replay asks
    the model (with the hub's own key) for at most ``R2R_HUB_REPLAY_MAX_TOKENS`` at
    ``R2R_HUB_REPLAY_MAX_TEMPERATURE``."""
    script = write_fake_script(tmp_path / "fake.json", {"models": {"coder": [
        {"responses": [{"text": "```python\ndef solution():\n    return None\n```"}]}]}})
    for name, value in script.items():
        monkeypatch.setenv(name, value)  # the served hub's environment: its model access
    log = tmp_path / "calls.jsonl"
    env = {**SCHEDULE, "R2R_FAKE_LOG": str(log), "R2R_HUB_REPLAY_MAX_TOKENS": "4096"}
    with hub_process(tmp_path / "hub", env=env) as hub, \
            hub.client(hub.token("mallory")) as client:
        reply = client.post("/api/submissions", json=forged(
            client, model="fake/coder", suite="humaneval", drawn=5, max_tokens=2_000_000_000,
            temperature=2.0, sandbox_timeout_ms=3_600_000))
        assert reply.status_code == 201, reply.text
        details = wait_for(client, reply.json()["id"], _reverified)
    calls = read_fake_log(log, preflight=False)
    assert len(calls) == 5
    assert {(call["max_tokens"], call["temperature"]) for call in calls} == {(4096, 1.0)}
    assert "within this hub's limits: sandbox_timeout_ms 3.6e+06 -> 30000 " \
           "(R2R_HUB_REPLAY_MAX_SANDBOX_TIMEOUT_MS), max_tokens 2e+09 -> 4096 " \
           "(R2R_HUB_REPLAY_MAX_TOKENS), temperature 2 -> 1 (R2R_HUB_REPLAY_MAX_TEMPERATURE)" \
        in details["history"][-1]["reason"]


@pytest.mark.slow  # three attempts of the served hub, with their backoff
def test_a_replay_that_fails_on_the_hub_is_retried_with_backoff_then_left_unverified(
        tmp_path: Path) -> None:
    env = {**SCHEDULE, "R2R_HUB_REPLAY_TIMEOUT": "1", "R2R_HUB_REVERIFY_ATTEMPTS": "3",
           "R2R_HUB_REVERIFY_BACKOFF": "2"}
    seen: dict[int, str] = {}

    def final(details: dict) -> bool:
        state = details.get("reverification") or {}
        if state.get("status") == "retrying":
            seen[state["attempts"]] = state["retry_at"]
        return _reverified(details)

    with hub_process(tmp_path / "hub", env=env) as hub, \
            hub.client(hub.token("mallory")) as client:
        reply = client.post("/api/submissions", json=forged(
            client, model="r2r/reference", drawn=5, rounds=5))
        assert reply.status_code == 201 and reply.json()["status"] == "accepted", reply.text
        details = wait_for(client, reply.json()["id"], final)
        assert reply.json()["id"] not in [row["latest_submission"] for row in
                                          client.get("/api/leaderboard").json()["rows"]]
    assert details["status"] == "unverified" and details["reverification"]["attempts"] == 3
    reason = details["history"][-1]["reason"]
    assert reason.startswith("not re-verified after 3 attempt(s): ")
    assert "the replay took longer than this hub's 1 s (R2R_HUB_REPLAY_TIMEOUT)" in reason
    assert [change["actor"] for change in details["history"]].count("reverify") == 1
    assert sorted(seen) == [1, 2]  # both retries were seen waiting
    waits = datetime.fromisoformat(seen[2]) - datetime.fromisoformat(seen[1])
    assert waits.total_seconds() >= 4 - 1  # the second backoff (4 s) after the first (2 s)
    assert json.dumps(details).isascii()
