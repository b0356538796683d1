"""Re-verification: the hub replays a submitted run from its seed with its answers; a run
whose claims were forged consistently (chain and aggregates rebuilt) is disputed."""

from __future__ import annotations

import json
import re

import pytest
from hub_server import Hub, fresh_nonce

from pytest_req2rank.evidence import chain_for
from pytest_req2rank.hub.cli import main
from pytest_req2rank.report import ResultsDocument, build_summary

pytestmark = pytest.mark.slow  # a benchmark run, then two replays of it


def test_a_replayed_run_is_verified_and_a_forged_one_disputed(
        pytester: pytest.Pytester, hub: Hub, user: str, capsys: pytest.CaptureFixture[str]) -> None:
    with hub.client(user) as client:
        spare = fresh_nonce(client)  # issued before the run: the forgery's
        result = pytester.runpytest(f"--r2r-submit={hub.url}", f"--r2r-hub-token={user}",
                                    "-p", "no:cacheprovider", "--r2r-rounds=6",
                                    "--r2r-json=results.json")
        assert result.ret == 0, result.stdout.str()
        genuine = int(re.search(r"/submissions/(\d+)", result.stdout.str()).group(1))  # type: ignore[union-attr]

        document = ResultsDocument.model_validate(json.loads((pytester.path / "results.json")
                                                             .read_text()))
        items = list(document.items)
        items[1] = items[1].model_copy(update={"score": round((items[1].score or 0) - 6, 1)})
        dropped = items.pop()  # the forger also leaves out an item (its own check below)
        forged = document.model_copy(update={
            "items": items, "run": document.run.model_copy(update={"id": "forged-run"}),
            "summary": build_summary(items, planned=len(items),
                                     wall_time_s=document.summary.wall_time_s,
                                     seed=document.run.seed)})
        reply = client.post("/api/submissions", json={
            "nonce": spare["nonce"], "results": forged.model_dump(mode="json"),
            "evidence": chain_for(spare["nonce"], "forged-run", spare["issued_at"], items)})
        assert reply.status_code == 201 and reply.json()["status"] == "accepted", reply.text
        capsys.readouterr()

        assert main(["--database-url", hub.config.database_url, "reverify", str(genuine)]) == 0
        assert "verified (6 items compared)" in capsys.readouterr().out
        assert main(["--database-url", hub.config.database_url, "reverify",
                     str(reply.json()["id"])]) == 1
        out = capsys.readouterr().out
        assert "disputed (5 items compared)" in out
        assert f"{items[1].item_id}: score {items[1].score}, the replay gives " in out
        assert f"the run left out 1 item(s) its seed draws: {dropped.item_id}" in out

        statuses = {genuine: "verified", reply.json()["id"]: "disputed"}
        for submission, status in statuses.items():
            details = client.get(f"/api/submissions/{submission}").json()
            assert details["status"] == status and details["history"][-1]["actor"] == "reverify"
        rows = client.get("/api/models/r2r/reference").json()["submissions"]
        assert {row["id"]: row["status"] for row in rows if row["id"] in statuses} == statuses
