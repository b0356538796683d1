"""Attack: invent an LLM judge's verdicts (every item scored 99), as a modified client
would, against a served hub over HTTP. The score alone edited is refused (each item's panel
is recomputed from its verdicts); verdicts and panels invented consistently are kept but
never ranked on them: unverified when the hub does not call the judge, disputed when it asks
the judge again on its sample. And a run of several samples per task is replayed as
planned, every sample of a task in turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from forgery import SCHEDULE, forged, judged_by, wait_for
from hub_server import chained, fresh_nonce, hub_process, make_items, refused, running_hub

from pytest_req2rank.draws import nonce_seed
from pytest_req2rank.hub.cli import main
from pytest_req2rank.judging import PanelConfig, aggregate_verdicts
from pytest_req2rank.models import DIMENSIONS, ItemResult
from pytest_req2rank.providers.fake import write_fake_script
from pytest_req2rank.report import ResultsDocument, build_summary
from pytest_req2rank.settings import Settings

JUDGE = "fake/judge"
JUDGED = {"judges": [JUDGE], "execution_weight": 0.7}
"""The synthetic runs' settings here: judged by the LLM judge alone."""


def _judged(items: list[ItemResult], score: float) -> list[ItemResult]:
    return [judged_by(item, JUDGE, score) for item in items]


def _board(client: httpx.Client) -> list[int]:
    return [row["latest_submission"] for row in client.get("/api/leaderboard").json()["rows"]]


def test_an_edited_score_or_verdict_is_refused_at_once(tmp_path: Path) -> None:
    with running_hub(tmp_path) as hub, hub.client(hub.token("mallory")) as client:
        items = _judged(make_items(), 60.0)
        edited = [items[0].model_copy(update={"score": 99.0}), *items[1:]]
        message = refused(client.post("/api/submissions", json=forged(
            client, edited, model="judged/score", **JUDGED)), 422, "score_mismatch")
        assert "item dynamic/R0: score is 99.0, but its judges' verdicts give " in message

        verdict = items[0].judges[0].model_copy(update={"overall": 99.0})
        edited = [items[0].model_copy(update={"judges": [verdict]}), *items[1:]]
        message = refused(client.post("/api/submissions", json=forged(
            client, edited, model="judged/verdict", **JUDGED)), 422, "score_mismatch")
        assert f"item dynamic/R0: {JUDGE}'s overall is 99.0, but its scores give 60.0" in message

        panel = items[0].panel.model_copy(update={"overall": 99.0, "dimensions": dict.fromkeys(
            DIMENSIONS, 99.0)}) if items[0].panel else None
        edited = [items[0].model_copy(update={"panel": panel, "score": 99.0}), *items[1:]]
        message = refused(client.post("/api/submissions", json=forged(
            client, edited, model="judged/panel", **JUDGED)), 422, "score_mismatch")
        assert "item dynamic/R0: score is 99.0, but its judges' verdicts give " in message

        # A panel that blends in a pass ratio the item's tests cannot give.
        failing = ItemResult.model_validate({**items[0].model_dump(mode="json"), "tests": [
            {"name": f"t{n}", "status": "success" if n == 0 else "wrong_answer"}
            for n in range(4)], "tests_passed": 1, "pass_ratio": 0.25})
        blended = aggregate_verdicts(failing.judges, 1.0, PanelConfig())
        edited = [failing.model_copy(update={"panel": blended, "score": blended.overall}),
                  *items[1:]]
        message = refused(client.post("/api/submissions", json=forged(
            client, edited, model="judged/ratio", **JUDGED)), 422, "score_mismatch")
        assert "item dynamic/R0: panel.execution_ratio is 1.0, which 1 of 4 tests passed " \
            "cannot give" in message


def test_invented_verdicts_of_a_judge_the_hub_does_not_call_are_never_ranked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every item scored 99 by an LLM judge the hub cannot ask: the score cannot be
    verified, so the run is kept ``unverified`` from the start, listed apart, never ranked,
    and re-verifying it leaves it so."""
    monkeypatch.setenv("R2R_HUB_REVERIFY_MODELS", "r2r/*")  # the reverify command's too
    with running_hub(tmp_path, reverify_models="r2r/*") as hub, \
            hub.client(hub.token("mallory")) as client:
        reply = client.post("/api/submissions", json=forged(
            client, _judged(make_items(), 99.0), model="r2r/reference", **JUDGED))
        assert reply.status_code == 201 and reply.json()["status"] == "unverified", reply.text
        submission = reply.json()["id"]
        why = {row["id"]: row["why"] for row in
               client.get("/api/leaderboard/unverified").json()["rows"]}[submission]
        assert why.startswith("the hub cannot replay it: its scores come from the LLM judge "
                       "'fake/judge', which this hub cannot ask again (this hub does not call "
                       "fake/judge (its R2R_HUB_REVERIFY_MODELS: r2r/*)), so they cannot be "
                       "verified")
        assert main(["--database-url", hub.config.database_url, "reverify", str(submission)]) == 1
        details = client.get(f"/api/submissions/{submission}").json()
        assert details["status"] == "unverified" and submission not in _board(client)
        assert "its scores come from the LLM judge 'fake/judge'" in details["history"][-1]["reason"]


def _judge_script(score: float) -> list[dict[str, Any]]:
    answer = {"scores": dict.fromkeys(DIMENSIONS, score), "rationale": "Scripted."}
    return [{"responses": [{"text": json.dumps(answer)}]}]


def _run(pytester: pytest.Pytester, nonce: dict[str, Any], *args: str) -> ResultsDocument:
    result = pytester.runpytest("-p", "no:cacheprovider", "--r2r-json=results.json",
                                f"--r2r-seed={nonce_seed(nonce['nonce'])}", *args)
    assert result.ret in (0, 1), result.stdout.str()
    return ResultsDocument.model_validate(
        json.loads((pytester.path / "results.json").read_text()))


def _sent(client: httpx.Client, nonce: dict[str, Any], document: ResultsDocument,
          items: list[ItemResult], run_id: str) -> int:
    """``items`` sent as run ``run_id`` of ``document``'s, aggregates and chain rebuilt."""
    sent = document.model_copy(update={
        "items": items, "run": document.run.model_copy(update={"id": run_id}),
        "summary": build_summary(items, planned=len(items),
                                 wall_time_s=document.summary.wall_time_s,
                                 seed=document.run.seed)})
    reply = client.post("/api/submissions", json=chained(nonce, sent.model_dump(mode="json"),
                                                        items))
    assert reply.status_code == 201 and reply.json()["status"] in ("accepted", "flagged"), \
        reply.text
    return int(reply.json()["id"])


@pytest.mark.slow  # two benchmark runs, then the served hub's replays of them
def test_invented_verdicts_are_disputed_when_the_hub_asks_the_judge_again(
        pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real run judged by ``fake/judge`` (scripted: 60 on every dimension) and the same
    kind of run with every verdict invented at 99, panels and aggregates rebuilt: the hub
    asks the judge again on a sample of 4 of the 6 items it draws from its secret and the
    submission's digest (recorded with the chance it had to catch forged items); the
    genuine run is verified, the forged one disputed."""
    for name, value in write_fake_script(tmp_path / "fake.json", {"models": {
            "judge": _judge_script(60.0)}}).items():
        monkeypatch.setenv(name, value)  # the runs' judge, and the served hub's
    settings = Settings(rounds=6, **JUDGED).model_dump(mode="json", by_alias=True)
    env = {**SCHEDULE, "R2R_HUB_REPLAY_MAX_ITEMS": "4", "R2R_HUB_REVERIFY_SAMPLE": "2"}
    with hub_process(tmp_path / "hub", env=env) as hub, \
            hub.client(hub.token("mallory")) as client:
        submissions = {}
        for kind in ("genuine", "forged"):
            nonce = fresh_nonce(client, "r2r/reference", settings=settings)
            document = _run(pytester, nonce, "--r2r-rounds=6", f"--r2r-judges={JUDGE}")
            items = list(document.items)
            assert {item.judges[0].overall for item in items} == {60.0}
            if kind == "forged":
                items = [judged_by(item, JUDGE, 99.0) for item in items]
            submissions[kind] = _sent(client, nonce, document, items, f"{kind}-run")
        done = {kind: wait_for(client, submission, lambda details: details["history"][-1][
            "actor"] == "reverify") for kind, submission in submissions.items()}
        board = _board(client)
    assert done["genuine"]["status"] == "verified" and submissions["genuine"] in board
    assert done["forged"]["status"] == "disputed" and submissions["forged"] not in board
    answers = done["forged"]["reverification"]["replays"][0]
    assert answers["kind"] == "answers" and answers["status"] == "disputed"
    assert answers["reasons"][0] == (f"{JUDGE}'s mean score over 4 items: claimed 99.0, asked "
                                     "again 60.0 (tolerance 10.0)")
    sample = answers["sample"]
    assert sample["population"] == 6 and sample["size"] == 4 and len(sample["items"]) == 4
    assert sample["drawn_from"].startswith("the hub's secret and the submission's digest ")
    assert sample["detection"] == {"1": 0.6667, "5": 1.0} and sample["caught_at_95"] == 3
    assert {row["item_id"] for row in answers["items"]} == set(sample["items"])
    assert "its answers graded again (4 items; 4 of 6 items drawn from the hub's secret" in \
        done["forged"]["history"][-1]["reason"]


@pytest.mark.slow  # a benchmark run of two samples per task, then replays of it
def test_a_run_of_several_samples_per_task_is_replayed_as_planned(
        pytester: pytest.Pytester, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Three requirements, two samples each: the answers replay plans the same six items
    (every sample of a task in turn) and verifies the run; the run with one sample dropped
    (aggregates rebuilt) is disputed for the sample it left out."""
    settings = Settings(rounds=3, samples_per_task=2).model_dump(mode="json", by_alias=True)
    with running_hub(tmp_path) as hub, hub.client(hub.token("sampler")) as client:
        submissions = {}
        for kind in ("genuine", "dropped"):
            nonce = fresh_nonce(client, "r2r/reference", settings=settings)
            document = _run(pytester, nonce, "--r2r-rounds=3", "--r2r-samples-per-task=2")
            items = list(document.items)
            assert len(items) == 6 and {item.sample for item in items} == {0, 1}
            if kind == "dropped":
                dropped = next(item for item in items if item.sample == 1)
                items.remove(dropped)
            submissions[kind] = _sent(client, nonce, document, items, f"{kind}-run")
        capsys.readouterr()
        assert main(["--database-url", hub.config.database_url, "reverify",
                     str(submissions["genuine"])]) == 0
        out = capsys.readouterr().out
        assert "verified (answers verified, 6 items; model verified, 6 items)" in out
        assert main(["--database-url", hub.config.database_url, "reverify",
                     str(submissions["dropped"])]) == 1
        out = capsys.readouterr().out
    assert f"the run left out 1 item(s) its seed draws: {dropped.item_id}" in out
    assert dropped.item_id.endswith("/s1")
