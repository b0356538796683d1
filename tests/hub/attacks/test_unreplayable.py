"""Attacks with runs the hub cannot replay: requirements from a generator model, a template
directory or a suite file of the submitter's own, and N-version runs, each with invented
scores and a consistent chain. Kept, shown in a table of their own marked unverified, never
ranked. Over HTTP against a served hub."""

from __future__ import annotations

from pathlib import Path

import pytest
from forgery import forged
from hub_server import Hub, make_items, running_hub

from pytest_req2rank.hub._reverify import pending_reverification

INVENTED = [97.0, 99.0, 98.0, 99.0, 96.0, 99.0]


@pytest.mark.parametrize(("suite", "settings", "why"), [
    ("dynamic", {"generator": "gpt-4o"}, "its requirements were elaborated by a generator model"),
    ("dynamic", {"templates": "/home/mallory/easy-templates"},
     "it drew its requirements from a template directory of its own"),
    ("jsonl:/home/mallory/easy.jsonl", {}, "it ran a suite file of its own"),
    ("humaneval", {"nversion": 5}, "N-version runs are not replayed"),
])
def test_a_run_the_hub_cannot_replay_is_kept_apart_marked_unverified_never_ranked(
        hub: Hub, user: str, suite: str, settings: dict, why: str) -> None:
    model = f"unreplayable/{len(why)}"
    with hub.client(user) as client:
        reply = client.post("/api/submissions", json=forged(
            client, make_items(scores=INVENTED), model=model, suite=suite, **settings))
        assert reply.status_code == 201, reply.text
        submission = reply.json()
        assert submission["status"] == submission["receipt"]["status"] == "unverified"
        assert model not in [row["model"] for row in
                             client.get("/api/leaderboard").json()["rows"]]
        listed = {row["id"]: row for row in
                  client.get("/api/leaderboard/unverified").json()["rows"]}
        row = listed[submission["id"]]
        assert (row["model"], row["status"], row["overall"]) == (model, "unverified", 98.0)
        assert row["why"].startswith(f"the hub cannot replay it: {why}")
        page = client.get("/unverified").text
        assert f'data-submission="{submission["id"]}"' in page and why in page
        assert 'href="/unverified"' in client.get("/").text
        assert client.get(f"/api/submissions/{submission['id']}").json()["status"] == "unverified"
        assert "badge unverified" in client.get(f"/models/{model}").text
    with hub.app.state.sessions() as session:
        assert submission["id"] not in pending_reverification(session)


@pytest.mark.slow  # a benchmark run
def test_the_client_says_a_run_was_kept_but_not_ranked(pytester: pytest.Pytester,
                                                       tmp_path: Path) -> None:
    """An honest run of a model this hub does not call: kept, not ranked; the plugin says so
    and does not fail the session as a submission that was not taken."""
    with running_hub(tmp_path / "hub", reverify_models="openai/*") as hub:
        result = pytester.runpytest("-p", "no:cacheprovider", "--r2r-rounds=2",
                                    f"--r2r-submit={hub.url}",
                                    f"--r2r-hub-token={hub.token('honest')}")
    assert result.ret in (0, 1), result.stdout.str()
    said = ("req2rank: submission: unverified http://127.0.0.1:*/submissions/1 (kept, not "
            "ranked: this hub cannot re-verify the run (its page says why))")
    result.stdout.fnmatch_lines([said])
