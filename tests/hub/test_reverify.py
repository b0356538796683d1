"""Re-verification: the hub replays a submitted run from its seed, grading its answers again
and asking its model again (the built-in reference model; a scripted fake model through the
hub's own environment). A run whose claims were forged consistently (chain and aggregates
rebuilt) is disputed; one the hub cannot replay keeps its status, with the reason."""

from __future__ import annotations

import json
import re
import time
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from hub_server import (
    Hub,
    chained,
    fresh_nonce,
    make_items,
    make_payload,
    refused,
    running_hub,
)

from pytest_req2rank.draws import nonce_seed
from pytest_req2rank.hub.cli import main
from pytest_req2rank.judging import PanelConfig, aggregate_verdicts, weighted_overall
from pytest_req2rank.models import ItemResult
from pytest_req2rank.report import ResultsDocument, build_summary
from pytest_req2rank.settings import Settings

pytestmark = pytest.mark.slow  # benchmark runs, then replays of them

RUN = ["-p", "no:cacheprovider", "--r2r-rounds=6", "--r2r-json=results.json"]


def _declared_nonce(client: Any, model: str) -> dict[str, Any]:
    """A nonce fetched for a run of ``model`` with :data:`RUN`'s settings, as a modified
    client would fetch it for a run it then makes (or forges) itself."""
    return fresh_nonce(client, model, settings=Settings(rounds=6).model_dump(
        mode="json", by_alias=True))


def _offline(pytester: pytest.Pytester, nonce: dict[str, Any], *args: str) -> ResultsDocument:
    """A run seeded by ``nonce`` (as the plugin seeds a submitted one), not submitted."""
    result = pytester.runpytest(*RUN, f"--r2r-seed={nonce_seed(nonce['nonce'])}", *args)
    assert result.ret in (0, 1), result.stdout.str()
    return _results(pytester)


def _submitted(result: pytest.RunResult) -> int:
    """The kept submission's id; the run's items may fail (exit 1), the submission may not."""
    assert result.ret in (0, 1) and re.search(r"submission: (accepted|flagged) ",
                                               result.stdout.str()), result.stdout.str()
    return int(re.search(r"/submissions/(\d+)", result.stdout.str()).group(1))  # type: ignore[union-attr]


def _answered_apart(*documents: ResultsDocument) -> bool:
    """Whether no answer is in two of ``documents``."""
    answers = [{item.response for item in document.items if item.response}
               for document in documents]
    return all(a.isdisjoint(b) for a, b in combinations(answers, 2))


def _results(pytester: pytest.Pytester) -> ResultsDocument:
    return ResultsDocument.model_validate(json.loads((pytester.path / "results.json").read_text()))


def _forge(client: Any, document: ResultsDocument, items: list[Any], nonce: dict[str, Any],
           run_id: str, *, model: str | None = None) -> int:
    """Submit ``items`` as run ``run_id`` (of ``model``) with a consistent chain and
    aggregates, under ``nonce`` (the one that seeded the run)."""
    run = document.run.model_copy(update={"id": run_id})
    if model:
        items = [item.model_copy(update={"model": model}) for item in items]
        run = run.model_copy(update={"model": model, "settings": {**run.settings, "model": model}})
    forged = document.model_copy(update={
        "items": items, "run": run,
        "summary": build_summary(items, planned=len(items), wall_time_s=document.summary.wall_time_s,
                                 seed=document.run.seed)})
    reply = client.post("/api/submissions", json=chained(nonce, forged.model_dump(mode="json"),
                                                        items))
    assert reply.status_code == 201 and reply.json()["status"] == "accepted", reply.text
    return int(reply.json()["id"])


def _rescored(item: ItemResult, change: float) -> ItemResult:
    """``item`` with every judge's scores moved by ``change`` and its panel and score
    recomputed from them, as a modified client forges a judged item consistently."""
    verdicts = [verdict.model_copy(update={
        "scores": (scores := {name: max(0.0, min(100.0, value + change))
                              for name, value in (verdict.scores or {}).items()}),
        "overall": weighted_overall(scores)}) for verdict in item.judges]
    assert item.panel is not None
    panel = aggregate_verdicts(verdicts, item.panel.execution_ratio,
                               PanelConfig(execution_weight=item.panel.execution_weight))
    return item.model_copy(update={"judges": verdicts, "panel": panel, "score": panel.overall})


def _reverify(hub: Hub, *arguments: str) -> int:
    return main(["--database-url", hub.config.database_url, "reverify", *arguments])


def test_a_replayed_run_is_verified_and_a_forged_one_disputed(
        pytester: pytest.Pytester, hub: Hub, user: str, capsys: pytest.CaptureFixture[str]) -> None:
    with hub.client(user) as client:
        genuine = _submitted(pytester.runpytest(f"--r2r-submit={hub.url}",
                                                f"--r2r-hub-token={user}", *RUN))
        forging = _declared_nonce(client, "r2r/reference")  # a modified client's run
        document = _offline(pytester, forging)
        items = list(document.items)
        edited = items[1].model_copy(update={"score": round((items[1].score or 0) - 6, 1)})
        message = refused(client.post("/api/submissions", json=chained(
            forging, document.model_copy(update={"items": [items[0], edited, *items[2:]]})
            .model_dump(mode="json"), [items[0], edited, *items[2:]])), 422, "score_mismatch")
        assert f"item {edited.item_id}: score is {edited.score}, but its judges' verdicts " \
            "give " in message  # the score alone: recomputed from the verdicts at once
        items[1] = _rescored(items[1], -6.0)  # the verdict and panel edited too
        dropped = items.pop()  # the forger also leaves out an item (its own check below)
        forged = _forge(client, document, items, forging, "forged-run")
        capsys.readouterr()

        assert _reverify(hub, str(genuine)) == 0
        out = capsys.readouterr().out
        assert f"submission {genuine}: verified (answers verified, 6 items; model verified, 6 items)" \
            in out
        assert _reverify(hub, str(forged)) == 1
        out = capsys.readouterr().out
        assert f"submission {forged}: disputed (answers disputed, 5 items" in out
        assert f"{items[1].item_id}: score {items[1].score}, the replay gives " in out
        assert f"the run left out 1 item(s) its seed draws: {dropped.item_id}" in out

        statuses = {genuine: "verified", forged: "disputed"}
        for submission, status in statuses.items():
            details = client.get(f"/api/submissions/{submission}").json()
            assert details["status"] == status and details["history"][-1]["actor"] == "reverify"
        model_replay = client.get(f"/api/submissions/{genuine}").json()["reverification"]
        assert [replay["kind"] for replay in model_replay["replays"]] == ["answers", "model"]
        assert all(row["claimed_pass_ratio"] == row["replayed_pass_ratio"]
                   for row in model_replay["replays"][1]["items"])
        rows = client.get("/api/models/r2r/reference").json()["submissions"]
        assert {row["id"]: row["status"] for row in rows if row["id"] in statuses} == statuses


def _fake_script(documents: list[ResultsDocument], path: Path) -> Path:
    """``fake/coder`` answers the first half of each run's requirements as the reference
    model did and the rest with code that fails; ``fake/silent`` is not in the script. A rule
    matches a whole prompt: requirements drawn from one template share long openings."""
    rules = []
    for document in documents:
        for index, item in enumerate(document.items):
            answer = item.response if index < len(document.items) // 2 else \
                "```python\n" + "\n".join(f"def {name}(*args, **kwargs):\n    return None\n"
                                          for name in _functions(item.response or "")) + "```"
            rules.append({"match": "^" + re.escape(item.prompt or ""),
                          "responses": [{"text": answer}]})
    path.write_text(json.dumps({"models": {"coder": rules}}), encoding="utf-8")
    return path


def _functions(code: str) -> list[str]:
    return re.findall(r"^def (\w+)\(", code, flags=re.MULTILINE) or ["solution"]


def test_the_hub_asks_the_model_again_and_disputes_a_relabelled_run(
        pytester: pytest.Pytester, hub: Hub, user: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    with hub.client(user) as client:
        reference = _submitted(pytester.runpytest(f"--r2r-submit={hub.url}",
                                                  f"--r2r-hub-token={user}", *RUN))
        kept = _results(pytester)
        # Two runs of fake/coder's, as a modified client makes them: the nonce fetched for
        # fake/coder, the run made with the seed it draws. The first is fake/coder's own; the
        # second the reference model's (every item passing), relabelled as fake/coder's.
        # Nonces whose requirements the kept run and each other did not answer alike: the
        # hub refuses a run half of whose answers a kept run gave (fake/coder answers half
        # its requirements as the reference does).
        for _ in range(5):
            own_nonce, relabel_nonce = (_declared_nonce(client, "fake/coder") for _ in range(2))
            strong = [_offline(pytester, nonce) for nonce in (own_nonce, relabel_nonce)]
            if _answered_apart(kept, *strong):
                break
        else:
            pytest.fail("five pairs of nonces drew requirements answered as the kept run's")
        monkeypatch.setenv("R2R_FAKE_SCRIPT", str(_fake_script(strong, pytester.path / "fake.json")))
        weak = _offline(pytester, own_nonce, "--r2r-model=fake/coder")
        assert 0 < sum(item.pass_ratio for item in weak.items) < len(weak.items)
        genuine = _forge(client, weak, list(weak.items), own_nonce, weak.run.id)  # as it ran
        relabelled = _forge(client, strong[1], list(strong[1].items), relabel_nonce,
                            "relabelled-run", model="fake/coder")
        capsys.readouterr()

        # The hub's environment serves fake/coder (its R2R_FAKE_SCRIPT), as a key would.
        assert _reverify(hub, str(genuine)) == 0
        assert f"submission {genuine}: verified" in capsys.readouterr().out
        assert _reverify(hub, str(relabelled)) == 1
        out = capsys.readouterr().out
        assert f"submission {relabelled}: disputed (answers verified, 6 items; model disputed, " \
               "6 items)" in out
        assert "mean pass ratio over 6 items: claimed 1.000, the model gives 0.500" in out
        details = client.get(f"/api/submissions/{relabelled}").json()
        assert details["status"] == "disputed"
        assert "its model asked again (6 items): disputed" in details["history"][-1]["reason"]
        assert client.get(f"/api/submissions/{reference}").json()["status"] == "accepted"

        # A hub whose calls to the model all fail (no key, an outage): nothing changes.
        failing = {"models": {"coder": [{"responses": [{"error": "service_unavailable"}]}]}}
        (pytester.path / "down.json").write_text(json.dumps(failing), encoding="utf-8")
        monkeypatch.setenv("R2R_FAKE_SCRIPT", str(pytester.path / "down.json"))
        capsys.readouterr()
        assert _reverify(hub, str(genuine)) == 1
        out = capsys.readouterr().out
        assert f"submission {genuine}: unverifiable (answers verified, 6 items; model " \
               "unverifiable, 0 items)" in out
        assert "no answer of fake/coder to compare: its 6 calls failed on the hub " \
               "(6 api_error)" in out
        assert "the replay failed on the hub; it is tried again after " in out
        assert client.get(f"/api/submissions/{genuine}").json()["status"] == "verified"


def test_a_run_whose_model_the_hub_does_not_call_leaves_the_ranking_with_the_reason(
        pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("R2R_HUB_REVERIFY_MODELS", "acme/*")  # read by `req2rank-hub reverify`
    with running_hub(tmp_path / "hub") as hub:
        user = hub.token("alice")
        with hub.client(user) as client:
            submission = _submitted(pytester.runpytest(f"--r2r-submit={hub.url}",
                                                       f"--r2r-hub-token={user}", *RUN))
            capsys.readouterr()
            assert _reverify(hub, "--pending") == 1
            out = capsys.readouterr().out
            assert f"submission {submission}: unverifiable (answers verified" in out
            assert "this hub does not call r2r/reference (its R2R_HUB_REVERIFY_MODELS: acme/*)" \
                in out
            details = client.get(f"/api/submissions/{submission}").json()
            assert details["status"] == "unverified"
            assert details["history"][-1]["actor"] == "reverify"
            assert submission not in [row["latest_submission"] for row in
                                      client.get("/api/leaderboard").json()["rows"]]
            unverified = client.get("/api/leaderboard/unverified").json()["rows"]
            assert [row["id"] for row in unverified] == [submission]
            assert "this hub does not call r2r/reference" in unverified[0]["why"]
            assert _reverify(hub, "--pending") == 0
            assert "no submission waits for re-verification" in capsys.readouterr().out


def test_serve_re_verifies_new_submissions_on_a_schedule(pytester: pytest.Pytester,
                                                         tmp_path: Path) -> None:
    with running_hub(tmp_path / "hub", reverify_every_s=1) as hub:
        user = hub.token("bob")
        submission = _submitted(pytester.runpytest(f"--r2r-submit={hub.url}",
                                                   f"--r2r-hub-token={user}", *RUN))
        with hub.client() as client:
            for _ in range(240):  # the schedule's replays run pytest twice
                status = client.get(f"/api/submissions/{submission}").json()["status"]
                if status != "accepted":
                    break
                time.sleep(0.5)
        assert status == "verified"


def test_a_run_the_hubs_checks_flagged_is_ranked_once_verified_but_not_a_reported_one(
        pytester: pytest.Pytester, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with running_hub(tmp_path / "hub", reports_to_hold=1) as hub:  # one report holds a run
        user, reporter = hub.token("alice"), hub.token("reporter")
        with hub.client(user) as client:
            for _ in range(3):  # the model's history: scores near 42
                assert client.post("/api/submissions", json=make_payload(
                    client, items=make_items(scores=[40.0, 45.0] * 3),
                    model="r2r/reference")).status_code == 201
            submission = _submitted(pytester.runpytest(f"--r2r-submit={hub.url}",
                                                       f"--r2r-hub-token={user}", *RUN))
            details = client.get(f"/api/submissions/{submission}").json()
            assert details["status"] == "flagged"
            assert "points from this model's mean 42.5" in details["flags"][0]
            assert _reverify(hub, str(submission)) == 0
            assert client.get(f"/api/submissions/{submission}").json()["status"] == "verified"
        with hub.client(reporter) as client:
            assert client.post(f"/api/submissions/{submission}/flags",
                               json={"reason": "too good to be true"}).status_code == 201
            assert _reverify(hub, str(submission)) == 0
            details = client.get(f"/api/submissions/{submission}").json()
        assert details["status"] == "flagged"  # the report waits for an admin
        assert [change["actor"] for change in details["history"][-3:]] == \
            ["reverify", "reporter", "reverify"]
    capsys.readouterr()
