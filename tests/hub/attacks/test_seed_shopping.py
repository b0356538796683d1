"""Attack: choose the requirements. A seed picked offline (the best of several) is refused:
a submitted run's seed is the one its nonce draws. Running once per nonce and submitting
only the best leaves every other nonce as an abandoned attempt, shown on the model's page,
and the leaderboard ranks the pool of the model's verified runs, its best run only shown."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from hub_server import Hub, fresh_nonce, make_items, make_payload, refused

from pytest_req2rank.draws import nonce_seed


def _attempts(hub: Hub, model: str) -> int:
    """The nonces fetched for ``model`` so far, by every user."""
    with hub.client() as client:
        found = client.get(f"/api/models/{model}")
    return sum(row["attempts"] for row in found.json()["attempts"]) \
        if found.status_code == 200 else 0


def test_a_seed_chosen_offline_is_refused(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        nonce = fresh_nonce(client, "shop/offline")
        message = refused(client.post("/api/submissions", json=make_payload(
            client, nonce=nonce, seed=12345)), 422, "seed_mismatch")
    assert f"run.seed is 12345, but a run submitted with nonce {nonce['nonce']!r} is seeded " \
           f"{nonce_seed(nonce['nonce'])} (drawn from the nonce" in message
    assert nonce["seed"] == nonce_seed(nonce["nonce"])  # the hub says it when it issues one


def test_the_plugin_seeds_a_submitted_run_from_its_nonce_and_takes_no_seed_of_its_own(
        pytester: pytest.Pytester, hub: Hub, user: str, monkeypatch: pytest.MonkeyPatch
        ) -> None:
    args = ["-p", "no:cacheprovider", "--r2r-rounds=3", "--r2r-json=results.json",
            f"--r2r-submit={hub.url}", f"--r2r-hub-token={user}"]
    attempts_before = _attempts(hub, "r2r/reference")
    chosen = pytester.runpytest(*args, "--r2r-seed=5")
    assert chosen.ret == pytest.ExitCode.USAGE_ERROR
    chosen.stderr.fnmatch_lines([("ERROR: --r2r-seed=5 with --r2r-submit: a submitted run's "
                                  "seed is drawn from the hub's nonce, so no one chooses its "
                                  "requirements; drop --r2r-seed (or R2R_SEED, r2r_seed)")])
    monkeypatch.setenv("R2R_SEED", "6")
    assert pytester.runpytest(*args).ret == pytest.ExitCode.USAGE_ERROR
    monkeypatch.delenv("R2R_SEED")
    assert _attempts(hub, "r2r/reference") == attempts_before  # refused before any nonce

    result = pytester.runpytest(*args)
    found = re.search(r"/submissions/(\d+)", result.stdout.str())
    assert result.ret == 0 and found, result.stdout.str()
    results = json.loads((pytester.path / "results.json").read_text())
    with hub.client() as client:
        evidence = client.get(f"/api/submissions/{found.group(1)}/evidence").json()["evidence"]
    seed = nonce_seed(evidence[0]["nonce"])
    assert results["run"]["seed"] == seed and results["run"]["settings"]["seed"] is None
    result.stdout.fnmatch_lines([f"req2rank: run * | seed {seed} | *"])


def test_n_attempts_with_only_the_best_submitted_are_visible_and_not_ranked_on(
        hub: Hub) -> None:
    """cherry fetches five nonces for a model, runs each, submits only the best; fair submits
    both of theirs. The model's page shows cherry's four abandoned attempts; the leaderboard
    ranks the model by the pool of all three verified runs, cherry's best shown only."""
    model = "shop/model"
    with hub.client(hub.token("cherry")) as cherry:
        nonces = [fresh_nonce(cherry, model) for _ in range(5)]  # three stay open at most
        runs = {nonce["nonce"]: make_items(scores=[50.0 + 8 * n + 4 * (i % 3) for i in range(6)])
                for n, nonce in enumerate(nonces)}
        best = nonces[-1]
        assert max(runs, key=lambda value: sum(i.score or 0 for i in runs[value])) == \
            best["nonce"]
        submitted = [cherry.post("/api/submissions", json=make_payload(
            cherry, items=runs[best["nonce"]], nonce=best)).json()]
    with hub.client(hub.token("fair")) as fair:
        submitted += [fair.post("/api/submissions", json=make_payload(
            fair, items=make_items(scores=scores), model=model)).json()
            for scores in ([60.0, 62.0, 64.0] * 2, [68.0, 70.0, 72.0] * 2)]
    assert [reply["status"] for reply in submitted] == ["accepted"] * 3
    hub.verified(*(reply["id"] for reply in submitted))
    past = datetime.now(UTC) - timedelta(minutes=1)
    for nonce in nonces[2:4]:  # the nonces cherry left open, past their lifetime
        hub.sql("UPDATE nonces SET expires_at = :past WHERE value = :value", past=past,
                value=nonce["nonce"])

    with hub.client() as client:
        attempts = client.get(f"/api/models/{model}").json()["attempts"]
        page = client.get(f"/models/{model}").text
        row = next(row for row in client.get("/api/leaderboard").json()["rows"]
                   if row["model"] == model)
    assert attempts == [
        {"user": "cherry", "attempts": 5, "submitted": 1, "open": 0, "abandoned": 4},
        {"user": "fair", "attempts": 2, "submitted": 2, "open": 0, "abandoned": 0}]
    cherry_row = page.split('data-user="cherry"', 1)[1].split("</tr>", 1)[0]
    assert '<td class="num abandoned">4</td>' in cherry_row
    # The pool of the three runs' item scores (six each): the mean of their scores.
    pooled = sum(reply["overall"] for reply in submitted) / 3
    assert row["score"] == pytest.approx(pooled, abs=0.01) and row["count"] == 3
    assert row["best"] == submitted[0]["overall"] > row["score"]
    assert row["attempts"] == 7 and row["abandoned"] == 4


def test_a_models_lucky_run_is_shown_but_the_pool_of_its_runs_ranks_it(hub: Hub) -> None:
    """One verified run of a model better than every run of a rival's does not rank it
    above the rival: the leaderboard ranks each model by the pool of its verified runs and
    only shows the best one."""
    lucky, low = [95.0, 92.0, 97.0, 94.0, 90.0, 96.0], [30.0, 35.0, 25.0, 40.0, 28.0, 33.0]
    steady = [70.0, 72.0, 68.0, 75.0, 71.0, 69.0]
    submitted: dict[str, list[dict]] = {"shop/lucky": [], "shop/steady": []}
    with hub.client(hub.token("lucky-one")) as client:
        for scores in (lucky, low, low):
            submitted["shop/lucky"].append(client.post("/api/submissions", json=make_payload(
                client, items=make_items(scores=scores), model="shop/lucky")).json())
    with hub.client(hub.token("steady-one")) as client:
        for scores in (steady, steady):
            submitted["shop/steady"].append(client.post("/api/submissions", json=make_payload(
                client, items=make_items(scores=scores), model="shop/steady")).json())
    hub.verified(*(reply["id"] for replies in submitted.values() for reply in replies))
    with hub.client() as client:
        board = client.get("/api/leaderboard").json()
    rows = {row["model"]: row for row in board["rows"]}
    first, second = rows["shop/steady"], rows["shop/lucky"]
    assert second["best"] == submitted["shop/lucky"][0]["overall"] > first["best"]
    assert second["score"] == pytest.approx((sum(lucky) + 2 * sum(low)) / 18, abs=0.01)
    assert first["score"] == pytest.approx(sum(steady) / 6, abs=0.01)
    assert first["rank"] < second["rank"]  # the session's other models may rank between
    assert not any({"shop/steady", "shop/lucky"} <= set(group)
                   for group in board["ranking"]["groups"])


def test_an_attempt_is_of_the_model_it_declared(hub: Hub, user: str) -> None:
    """A nonce is fetched for one model (an attempt of it); a run of another model under it
    is refused, so attempts cannot be hidden under a model never submitted."""
    with hub.client(user) as client:
        refused(client.post("/api/nonces"), 422, "invalid_request")
        nonce = fresh_nonce(client, "shop/declared")
        message = refused(client.post("/api/submissions", json=make_payload(
            client, nonce=nonce, model="shop/other")), 422, "nonce_mismatch")
    assert "the run is of model 'shop/other', its nonce" in message
    assert "was fetched for 'shop/declared'" in message


def test_a_nonce_keeps_only_the_declared_settings(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        message = refused(client.post("/api/nonces", json={
            "model": "shop/declared", "settings": {"suite": "dynamic", "anything": 1}}),
            422, "invalid_request")
        assert "'anything' is not a declared setting" in message
        message = refused(client.post("/api/nonces", json={
            "model": "shop/declared", "settings": {"suite": "x" * 9000}}), 422,
            "invalid_request")
    assert "over 8192 bytes" in message
