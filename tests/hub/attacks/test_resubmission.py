"""Attack: another user's run, read from the hub (``GET /api/submissions/ID/evidence``, open
to anyone), re-chained under the attacker's own nonce with the package's evidence API and
submitted as theirs. Refused as a duplicate (409 ``duplicate``) while most answers are the
original's; with every answer altered the copy is kept, but its seed (the attacker's nonce's)
draws other requirements, so the replay disputes it and it never ranks."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hub_server import Hub, chained, fresh_nonce, make_items, make_payload, refused

from pytest_req2rank.draws import nonce_seed
from pytest_req2rank.hub.cli import main
from pytest_req2rank.models import ItemResult
from pytest_req2rank.report import ResultsDocument, build_summary


def _copied(client: Any, submission_id: int, model: str, *, reseed: bool,
            alter: str = "") -> dict[str, Any]:
    """The attacker's submission of a kept submission's run: its results read from the hub,
    given a run id, the seed of a nonce fetched for the same model and settings (``reseed``),
    each response ending with ``alter``, and chained under that nonce in the original order."""
    kept = client.get(f"/api/submissions/{submission_id}/evidence").json()
    document = ResultsDocument.model_validate(kept["results"])
    nonce = fresh_nonce(client, model, suite=document.run.suite,
                        settings=document.run.settings)
    by_id = {item.item_id: item for item in document.items}
    items: list[ItemResult] = [
        by_id[entry["item_id"]].model_copy(update={
            "response": by_id[entry["item_id"]].response + alter})
        for entry in kept["evidence"] if entry["kind"] == "item"]
    seed = nonce_seed(nonce["nonce"]) if reseed else document.run.seed
    run = document.run.model_copy(update={"id": f"copy-of-{document.run.id}", "seed": seed})
    copy = document.model_copy(update={"run": run, "items": items, "summary": build_summary(
        items, planned=document.summary.items_planned, wall_time_s=document.summary.wall_time_s,
        seed=seed)})
    return chained(nonce, copy.model_dump(mode="json"), items)


@pytest.mark.parametrize("reseed", [False, True], ids=["seed-kept", "reseeded"])
def test_another_users_run_resubmitted_as_theirs_is_refused_as_a_duplicate(
        hub: Hub, reseed: bool) -> None:
    with hub.client(hub.token(f"alice-original-{reseed}")) as alice:
        original = alice.post("/api/submissions",
                              json=make_payload(alice, model="copy/model")).json()
    with hub.client(hub.token(f"mallory-copier-{reseed}")) as mallory:
        copy = _copied(mallory, original["id"], "copy/model", reseed=reseed)
        message = refused(mallory.post("/api/submissions", json=copy), 409, "duplicate")
        mine = mallory.get("/api/models/copy/model").json()
    assert f"6 of the run's 6 answers are those of alice-original-{reseed}'s submission " \
           f"{original['id']} (run {original['run_id']}" in message
    assert "submit a run of your own" in message
    assert all(run["user"] != f"mallory-copier-{reseed}" for run in mine["submissions"])


def test_the_same_users_resend_is_idempotent_and_a_second_nonce_for_the_same_answers_refused(
        hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        items = make_items()
        payload = make_payload(client, items=items, model="copy/resend")
        first = client.post("/api/submissions", json=payload)
        again = client.post("/api/submissions", json=payload)
        assert first.status_code == 201 and again.status_code == 200
        assert again.json()["receipt"] == first.json()["receipt"]
        message = refused(client.post("/api/submissions", json=make_payload(
            client, items=items, model="copy/resend")), 409, "duplicate")
    assert f"are those of your submission {first.json()['id']}" in message


def test_runs_sharing_a_few_answers_are_not_duplicates(hub: Hub) -> None:
    """Two runs of one model may answer a requirement they both drew alike."""
    with hub.client(hub.token("shares-first")) as first:
        items = make_items()
        assert first.post("/api/submissions", json=make_payload(
            first, items=items, model="copy/shared")).status_code == 201
    with hub.client(hub.token("shares-second")) as second:
        own = make_items()
        own[:2] = [item.model_copy(update={"response": items[n].response})
                   for n, item in enumerate(own[:2])]
        reply = second.post("/api/submissions", json=make_payload(
            second, items=own, model="copy/shared"))
    assert reply.status_code == 201, reply.text


@pytest.mark.slow  # a benchmark run and its replays
def test_a_copy_with_every_answer_altered_is_disputed_by_its_own_seed(
        pytester: pytest.Pytester, hub: Hub, capsys: pytest.CaptureFixture[str]) -> None:
    """Past the duplicate check (a comment appended to every answer), the copy must carry the
    seed of the attacker's own nonce, and that seed draws other requirements."""
    alice = hub.token("alice-runs-it")
    result = pytester.runpytest("-p", "no:cacheprovider", "--r2r-rounds=5",
                                f"--r2r-submit={hub.url}", f"--r2r-hub-token={alice}")
    found = re.search(r"submission: accepted \S+/submissions/(\d+)", result.stdout.str())
    assert result.ret == 0 and found, result.stdout.str()
    with hub.client(hub.token("mallory-alters-it")) as mallory:
        copy = _copied(mallory, int(found.group(1)), "r2r/reference", reseed=True,
                       alter="\n# mine")
        reply = mallory.post("/api/submissions", json=copy)
        assert reply.status_code == 201 and reply.json()["status"] == "accepted", reply.text
        capsys.readouterr()
        assert main(["--database-url", hub.config.database_url, "reverify",
                     str(reply.json()["id"])]) == 1
        out = capsys.readouterr().out
        details = mallory.get(f"/api/submissions/{reply.json()['id']}").json()
    assert details["status"] == "disputed"
    assert "the requirement differs from the one the seed draws" in out \
        or "the seed does not draw this requirement" in out
