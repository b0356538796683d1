"""``pytest --r2r-submit``: the offline built-in model's run against a hub started here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hub_server import Hub

from pytest_req2rank.submit import submit_run

ARGS = ["-p", "no:cacheprovider", "--r2r-rounds=5"]

EDIT_ONE_SCORE = """
def pytest_sessionfinish(session):
    # after the run's results are written, before they are submitted: one score edited
    controller = session.config.pluginmanager.get_plugin("req2rank-submit").run.controller
    items = controller.document.items
    items[2] = items[2].model_copy(update={"score": 100.0})
"""

HUB_GONE = """
from pytest_req2rank.submit import HubClient

def pytest_sessionfinish(session):
    # the hub stops answering while the run goes on
    plugin = session.config.pluginmanager.get_plugin("req2rank-submit")
    plugin.run.submission.client = HubClient("http://127.0.0.1:9", "token")
"""


def _run_id(output: str) -> str:
    found = re.search(r"run (\d{8}-\d{6}-[0-9a-f]+)", output)
    assert found, output
    return found.group(1)


@pytest.mark.parametrize("xdist", [pytest.param([], id="serial"),
                                   pytest.param(["-n", "2"], id="xdist", marks=pytest.mark.slow)])
def test_a_run_submitted_to_the_hub_is_ranked(pytester: pytest.Pytester, hub: Hub, user: str,
                                              xdist: list[str]) -> None:
    """Under xdist the items reach the chain from the workers' reports, on the controller."""
    result = pytester.runpytest(f"--r2r-submit={hub.url}", f"--r2r-hub-token={user}", *ARGS,
                                *xdist)
    output = result.stdout.str()
    assert result.ret == 0, output
    line = next(line for line in output.splitlines() if line.startswith("req2rank: submission:"))
    submission = re.search(r"accepted (\S+/submissions/(\d+))", line)
    assert submission, line
    with hub.client() as client:
        rows = client.get("/api/leaderboard").json()["rows"]
        details = client.get(f"/api/submissions/{submission.group(2)}").json()
    assert any(row["model"] == "r2r/reference" for row in rows)
    assert details["run_id"] == _run_id(output) and details["items"] == 5
    assert details["evidence_entries"] == 7  # the nonce, 5 items, the run
    kept = submit_run(pytester.path / ".req2rank" / "req2rank.db", details["run_id"])
    assert kept.status == "accepted" and kept.receipt == details["receipt"]


@pytest.mark.slow  # a benchmark run of its own; the fast set keeps the accepted one
def test_a_run_with_one_score_edited_is_refused(pytester: pytest.Pytester, hub: Hub, user: str
                                                ) -> None:
    pytester.makeconftest(EDIT_ONE_SCORE)
    result = pytester.runpytest(f"--r2r-submit={hub.url}", f"--r2r-hub-token={user}", *ARGS)
    output = result.stdout.str()
    assert result.ret == 7, output
    refused = [line for line in output.splitlines() if line.startswith("req2rank: submission:")]
    assert len(refused) == 1 and "refused" in refused[0], output
    assert "evidence_mismatch" in refused[0] and "score" in refused[0]
    with hub.client() as client:
        assert client.get("/api/models/r2r/reference").status_code in (200, 404)
        mine = client.get("/api/models/r2r/reference").json().get("submissions", [])
    assert all(run["run_id"] != _run_id(output) for run in mine)


@pytest.mark.slow  # a benchmark run of its own; the fast set keeps the accepted one
def test_a_failed_submission_is_kept_and_the_retry_command_sends_it(
        pytester: pytest.Pytester, hub: Hub, user: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makeconftest(HUB_GONE)
    result = pytester.runpytest(f"--r2r-submit={hub.url}", f"--r2r-hub-token={user}", *ARGS)
    output = result.stdout.str()
    assert result.ret == 7, output
    assert "req2rank: submission: failed (no answer from the hub http://127.0.0.1:9" in output
    retry = re.search(r"retry with: (.+)$", output, re.MULTILINE)
    assert retry, output
    db = pytester.path / ".req2rank" / "req2rank.db"
    run_id = _run_id(output)
    assert retry.group(1) == (f"req2rank submit {run_id} --db {db} "
                              "--hub http://127.0.0.1:9")
    monkeypatch.setenv("R2R_HUB_TOKEN", user)
    outcome = submit_run(db, run_id, hub.url)
    assert outcome.status == "accepted" and outcome.url and outcome.receipt


@pytest.mark.slow  # a benchmark run of its own; the fast set keeps the accepted one
def test_submitting_without_a_hub_or_a_token_is_a_usage_error(
        pytester: pytest.Pytester, hub: Hub, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
        ) -> None:
    monkeypatch.delenv("R2R_HUB_URL", raising=False)
    monkeypatch.delenv("R2R_HUB_TOKEN", raising=False)
    monkeypatch.setenv("R2R_CONFIG_DIR", str(tmp_path / "config"))
    no_url = pytester.runpytest("--r2r-submit", *ARGS)
    assert no_url.ret == pytest.ExitCode.USAGE_ERROR
    no_url.stderr.fnmatch_lines([("ERROR: --r2r-submit: no hub URL; pass --r2r-submit=URL or "
                                  "set R2R_HUB_URL")])
    no_token = pytester.runpytest(f"--r2r-submit={hub.url}", *ARGS)
    no_token.stderr.fnmatch_lines([f"ERROR: --r2r-submit: no token for the hub {hub.url}: *"])
    down = pytester.runpytest("--r2r-submit=http://127.0.0.1:9", "--r2r-hub-token=t", *ARGS)
    down.stderr.fnmatch_lines([("ERROR: --r2r-submit: could not fetch a nonce: no answer from "
                                "the hub http://127.0.0.1:9 *")])
    assert not (pytester.path / ".req2rank" / "req2rank.db").exists()  # nothing ran
