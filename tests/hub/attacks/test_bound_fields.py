"""Attack: edit a field of the run's header or summary that the hub relies on, as a modified
client would, against a served hub over HTTP. Edited after the chain was closed, the run
entry no longer matches (``evidence_mismatch``); re-chained with the package's evidence API,
each edit meets the check that recomputes the field or holds the run to what it declared
before its seed was known, or the run is kept but not ranked (only verified runs are)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hub_server import (
    SETTINGS,
    Hub,
    chained,
    fresh_nonce,
    make_items,
    make_payload,
    rechain,
    refused,
)

from pytest_req2rank.draws import nonce_seed
from pytest_req2rank.hub import submission_digest
from pytest_req2rank.hub.cli import main
from pytest_req2rank.models import JudgeVerdict
from pytest_req2rank.report import ResultsDocument, build_summary
from pytest_req2rank.settings import Settings

Edit = Callable[[dict[str, Any]], None]


def _board_row(hub: Hub, model: str) -> dict[str, Any] | None:
    with hub.client() as client:
        rows = client.get("/api/leaderboard").json()["rows"]
    return next((row for row in rows if row["model"] == model), None)


def _add_llm_judge(results: dict[str, Any]) -> None:
    results["run"]["judges"] = ["r2r/static", "openai/gpt-4o"]


def _edit(path: str, value: Any) -> Edit:
    def edit(results: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target = results
        for key in parents:
            target = target[key]
        target[last] = value
    return edit


EDITS = {
    "run.judges": _add_llm_judge,
    "run.settings.generator": _edit("run.settings.generator", "openai/gpt-4o"),
    "run.isolation": _edit("run.isolation", "remote"),
    "run.settings.concurrency": _edit("run.settings.concurrency", 1024),
    "summary.items_planned": _edit("summary.items_planned", 5),
    "run.seed": _edit("run.seed", 12345),
}


@pytest.mark.parametrize("field", list(EDITS))
def test_a_header_field_edited_after_the_chain_closed_is_refused(hub: Hub, user: str,
                                                                 field: str) -> None:
    with hub.client(user) as client:
        payload = make_payload(client, model="bound/edited")
        EDITS[field](payload["results"])
        message = refused(client.post("/api/submissions", json=payload), 422,
                          "evidence_mismatch")
    where = "summary (results.summary)" if field.startswith("summary") else \
        "run header (results.run)"
    assert f"the run entry does not match the {where}" in message


def test_an_llm_judge_added_to_the_header_is_refused(hub: Hub, user: str) -> None:
    """Today's attack: with an LLM judge named, the replays stopped comparing scores, so
    every item scored 99 was verified. The judges are now those the items' verdicts show,
    and the panel those the run declared before its seed was known."""
    with hub.client(user) as client:
        items = [item.model_copy(update={"score": 99.0, "code": {"solution.py": item.response}})
                 for item in make_items()]
        payload = make_payload(client, items=items, model="bound/judged")
        _add_llm_judge(payload["results"])
        message = refused(client.post("/api/submissions", json=rechain(payload)), 422,
                          "header_mismatch")
        assert "run.judges is ['r2r/static', 'openai/gpt-4o'], but the run's settings give " \
            "the panel []" in message
        # Declared too, but the items carry no verdict of that judge.
        declared = {**SETTINGS, "judges": ["r2r/static", "openai/gpt-4o"]}
        nonce = fresh_nonce(client, "bound/judged", settings=declared)
        payload = make_payload(client, items=items, nonce=nonce)
        payload["results"]["run"]["settings"]["judges"] = declared["judges"]
        _add_llm_judge(payload["results"])
        message = refused(client.post("/api/submissions", json=rechain(payload)), 422,
                          "header_mismatch")
    assert "but item dynamic/R0 was judged by no judge" in message


def test_a_judge_verdict_added_to_items_must_match_the_declared_panel(hub: Hub, user: str
                                                                       ) -> None:
    """Items given a verdict of a judge the run did not declare: refused by the nonce."""
    with hub.client(user) as client:
        payload = make_payload(client, model="bound/verdicts")
        for item in payload["results"]["items"]:
            item["judges"] = [JudgeVerdict(judge="openai/gpt-4o", scores=None).model_dump(
                mode="json")]
        payload["results"]["run"]["judges"] = ["openai/gpt-4o"]
        payload["results"]["run"]["settings"]["judges"] = ["openai/gpt-4o"]
        message = refused(client.post("/api/submissions", json=rechain(payload)), 422,
                          "nonce_mismatch")
    assert "judges ['openai/gpt-4o'] (declared [])" in message


def test_a_generator_named_to_make_the_run_unreplayable_is_refused_or_never_ranked(
        hub: Hub, user: str) -> None:
    """Today's attack: ``run.settings.generator`` set makes the run unreplayable, so invented
    scores stayed ranked. Set after the nonce: refused (the run declared none); declared up
    front without the items' provenance: refused (the items show no generator); with invented
    provenance too: kept ``unverified`` (the hub cannot replay it), listed apart, never
    ranked."""
    with hub.client(user) as client:
        payload = make_payload(client, model="bound/generated")
        EDITS["run.settings.generator"](payload["results"])
        message = refused(client.post("/api/submissions", json=rechain(payload)), 422,
                          "nonce_mismatch")
        assert "generator 'openai/gpt-4o' (declared None)" in message

        declared = {**SETTINGS, "generator": "openai/gpt-4o"}
        nonce = fresh_nonce(client, "bound/generated", settings=declared)
        payload = make_payload(client, nonce=nonce)
        payload["results"]["run"]["settings"]["generator"] = "openai/gpt-4o"
        message = refused(client.post("/api/submissions", json=rechain(payload)), 422,
                          "header_mismatch")
        assert "settings.generator is 'openai/gpt-4o', but no item has a generator's " \
            "provenance" in message

        nonce = fresh_nonce(client, "bound/generated", settings=declared)
        payload = make_payload(client, nonce=nonce)
        payload["results"]["run"]["settings"]["generator"] = "openai/gpt-4o"
        for item in payload["results"]["items"]:
            item["provenance"] = {"source": "generator"}
        reply = client.post("/api/submissions", json=rechain(payload))
        assert reply.status_code == 201 and reply.json()["status"] == "unverified", reply.text
    submission = reply.json()["id"]
    assert main(["--database-url", hub.config.database_url, "reverify", str(submission)]) == 1
    with hub.client() as client:
        details = client.get(f"/api/submissions/{submission}").json()
        listed = {row["id"]: row for row in
                  client.get("/api/leaderboard/unverified").json()["rows"]}
    assert details["status"] == "unverified"
    assert "elaborated by a generator model" in details["history"][-1]["reason"]
    assert "elaborated by a generator model" in listed[submission]["why"]
    assert _board_row(hub, "bound/generated") is None  # neither ranked nor pending


def test_a_stronger_isolation_claimed_is_kept_but_ranked_only_once_verified(
        hub: Hub, user: str) -> None:
    """Today's attack: ``run.isolation`` edited from ``rlimits`` to ``full`` was accepted.
    The hub cannot see a sandbox; a run graded under a weak one is refused when it says so,
    and a run that claims the default is ranked only once the hub graded every answer again
    in its own sandbox (verified)."""
    with hub.client(user) as client:
        honest = make_payload(client, model="bound/isolation", isolation="rlimits")
        refused(client.post("/api/submissions", json=honest), 422, "weak_isolation")
        payload = copy.deepcopy(honest)
        payload["results"]["run"]["isolation"] = "full"
        refused(client.post("/api/submissions", json=payload), 422, "evidence_mismatch")
        reply = client.post("/api/submissions", json=rechain(payload))
        assert reply.status_code == 201 and reply.json()["status"] == "accepted", reply.text
    row = _board_row(hub, "bound/isolation")
    assert row is not None and row["rank"] is None and row["pending"] == 1


def test_a_concurrency_claimed_to_fit_more_work_is_refused(hub: Hub, user: str) -> None:
    """Today's attack: ``settings.concurrency=1024`` got 80 s of claimed work into a 6 s run
    past the timeline check. The check reads no setting now: a worker's sandbox executions
    take turns, whatever the concurrency claimed."""
    with hub.client(user) as client:
        start = datetime.now(UTC) - timedelta(seconds=6)
        items = [item.model_copy(update={
            "timings": item.timings.model_copy(update={"generation_s": 1.0, "execution_s": 4.5,
                                                       "total_s": 5.7}),
            "started_at": (start + timedelta(milliseconds=50 * n)).isoformat(
                timespec="milliseconds"),
            "finished_at": (start + timedelta(seconds=5.8, milliseconds=50 * n)).isoformat(
                timespec="milliseconds")}) for n, item in enumerate(make_items(14))]
        payload = make_payload(client, items=items, model="bound/concurrent")
        payload["results"]["run"]["settings"]["concurrency"] = 1024
        payload["results"]["run"]["started_at"] = start.isoformat(timespec="seconds")
        payload["results"]["run"]["finished_at"] = (start + timedelta(seconds=6)).isoformat(
            timespec="seconds")
        message = refused(client.post("/api/submissions", json=rechain(payload)), 422,
                          "timeline")
    total = sum(item.timings.total_s for item in items)
    assert total > 79.0
    assert "worker main's sandbox executions took 63.0 s in a run of 8 s" in message


def test_planned_items_edited_to_hide_a_dropped_item_are_refused_at_once_or_on_replay(
        hub: Hub, user: str) -> None:
    """Today's attack: ``summary.items_planned`` edited down hides an item dropped from the
    run. The aggregates are recomputed from the items, so the summary must be rebuilt for
    the edit, and its planned count is bound; the run's plan (rounds, sample) was declared
    before its seed was known, so the replay finds the dropped item (the slow test replays a
    real run). Here: the count edited alone, then with the summary rebuilt."""
    with hub.client(user) as client:
        payload = make_payload(client, model="bound/planned")
        payload["results"]["items"].pop()
        message = refused(client.post("/api/submissions", json=rechain(payload)), 422,
                          "score_mismatch")
        assert "summary.overall_score" in message or "summary.items_total" in message
        kept = make_items()[:-1]  # the summary rebuilt over them: 5 planned, 5 finished
        reply = client.post("/api/submissions", json=make_payload(client, items=kept,
                                                                 model="bound/planned"))
        assert reply.status_code == 201, reply.text
        assert not any("planned items" in flag for flag in reply.json()["flags"])
    row = _board_row(hub, "bound/planned")
    assert row is not None and row["rank"] is None and row["pending"] == 1


@pytest.mark.slow  # a benchmark run and its replays
def test_a_dropped_item_hidden_by_the_planned_count_is_disputed_on_replay(
        pytester: pytest.Pytester, hub: Hub, capsys: pytest.CaptureFixture[str]) -> None:
    """A real run made with its nonce's seed, its worst item dropped and the summary rebuilt
    to plan one item fewer: kept (the hub cannot plan a run at intake), not ranked, and
    disputed once the hub plans it again from the seed and the declared rounds."""
    with hub.client(hub.token("drops-an-item")) as client:
        nonce = fresh_nonce(client, "r2r/reference", settings=Settings(rounds=6).model_dump(
            mode="json", by_alias=True))
        result = pytester.runpytest("-p", "no:cacheprovider", "--r2r-rounds=6",
                                    "--r2r-json=results.json",
                                    f"--r2r-seed={nonce_seed(nonce['nonce'])}")
        assert result.ret in (0, 1), result.stdout.str()
        document = ResultsDocument.model_validate(
            json.loads((pytester.path / "results.json").read_text()))
        dropped = min(document.items, key=lambda item: item.score or 0.0)
        items = [item for item in document.items if item.item_id != dropped.item_id]
        forged = document.model_copy(update={"items": items, "summary": build_summary(
            items, planned=len(items), wall_time_s=document.summary.wall_time_s,
            seed=document.run.seed)})
        reply = client.post("/api/submissions", json=chained(
            nonce, forged.model_dump(mode="json"), items))
        assert reply.status_code == 201 and reply.json()["status"] == "accepted", reply.text
        assert reply.json()["flags"] == []  # not pooled until verified: it never will be
        capsys.readouterr()
        assert main(["--database-url", hub.config.database_url, "reverify",
                     str(reply.json()["id"])]) == 1
        out = capsys.readouterr().out
        status = client.get(f"/api/submissions/{reply.json()['id']}").json()["status"]
    assert status == "disputed"
    assert f"the run left out 1 item(s) its seed draws: {dropped.item_id}" in out


def test_the_receipt_signs_the_whole_submission(hub: Hub, user: str) -> None:
    with hub.client(user) as client:
        payload = make_payload(client, model="bound/receipt")
        receipt = client.post("/api/submissions", json=payload).json()["receipt"]
    assert receipt["submission_sha256"] == submission_digest(payload)
    for field, edit in EDITS.items():
        edited = copy.deepcopy(payload)
        edit(edited["results"])
        assert submission_digest(edited) != receipt["submission_sha256"], field
