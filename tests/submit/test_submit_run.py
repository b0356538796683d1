"""Sending a kept submission and reading the hub's answers: refusals, retryable failures,
runs that cannot be submitted."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from hub_server import Hub, make_items, make_payload, rechain

from pytest_req2rank.store import Store
from pytest_req2rank.submit import HubClient, HubError, SubmitError, submit_run


def _kept(db: Path, run_id: str, payload: dict | None, hub_url: str) -> None:
    store = Store(db)
    store.start_run(run_id=run_id, started_at="2026-01-01T00:00:00+00:00", model="m",
                    suite="dynamic", seed=1, plan={})
    if payload is not None:
        store.save_submission(run_id, hub_url=hub_url, nonce=payload["nonce"], payload=payload,
                              status="failed", message="no answer")
    store.close()


def test_a_kept_submission_is_sent_and_its_answer_kept(hub: Hub, user: str, tmp_path: Path
                                                       ) -> None:
    with hub.client(user) as client:
        payload = make_payload(client, items=make_items())
    run_id = payload["results"]["run"]["id"]
    db = tmp_path / "r.db"
    _kept(db, run_id, payload, hub.url)
    outcome = submit_run(db, run_id, token=user)
    assert outcome.status == "accepted" and outcome.retry is None
    store = Store(db)
    record = store.submission(run_id)
    store.close()
    assert record is not None and record["status"] == "accepted"
    assert record["receipt"] == outcome.receipt and record["url"] == outcome.url


def test_a_refused_submission_says_why_and_offers_no_retry(hub: Hub, user: str, tmp_path: Path
                                                          ) -> None:
    with hub.client(user) as client:
        payload = make_payload(client)
    payload["results"]["summary"]["overall_score"] = 99.0
    payload = rechain(payload)  # a modified client's
    run_id = payload["results"]["run"]["id"]
    _kept(tmp_path / "r.db", run_id, payload, hub.url)
    outcome = submit_run(tmp_path / "r.db", run_id, token=user)
    assert outcome.status == "refused" and outcome.retry is None
    assert "422 (score_mismatch): summary.overall_score is 99.0" in outcome.message


@pytest.mark.parametrize(("status", "body", "retryable"), [
    (503, {"error": {"code": "down", "message": "maintenance"}}, True),
    (429, {"error": {"code": "rate_limited", "message": "slow down"}}, True),
    (429, {"error": {"code": "daily_limit", "message": "10 today"}}, False),
    (502, None, True),
    (422, {"error": {"code": "timeline", "message": "too fast"}}, False),
])
def test_the_hubs_answers_are_retryable_or_not(status: int, body: dict | None, retryable: bool
                                               ) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=body) if body else httpx.Response(status, text="bad gw")

    with HubClient("http://hub.test", "t", transport=httpx.MockTransport(answer)) as client, \
            pytest.raises(HubError) as caught:
        client.submit({})
    assert caught.value.retryable is retryable and caught.value.status == status
    assert f"answered {status}" in str(caught.value)


def test_a_run_made_without_submit_cannot_be_submitted(tmp_path: Path) -> None:
    _kept(tmp_path / "r.db", "plain-run", None, "")
    with pytest.raises(SubmitError) as plain:
        submit_run(tmp_path / "r.db", "plain-run", "http://hub.test", "t")
    assert str(plain.value) == (
        f"run plain-run in {tmp_path / 'r.db'} was not run with --r2r-submit (a submitted run "
        "fetches the hub's nonce before its first model call); run it again with "
        "--r2r-submit=URL")
    with pytest.raises(SubmitError) as unknown:
        submit_run(tmp_path / "r.db", "other", "http://hub.test", "t")
    assert str(unknown.value) == (f"no run 'other' in {tmp_path / 'r.db'}; `req2rank runs --db "
                                  f"{tmp_path / 'r.db'}` lists its runs")
    with pytest.raises(SubmitError, match="no store at"):
        submit_run(tmp_path / "missing.db", "x", "http://hub.test", "t")


def test_the_retry_command_runs(hub: Hub, user: str, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_req2rank.cli import main

    with hub.client(user) as client:
        payload = make_payload(client)
    run_id = payload["results"]["run"]["id"]
    _kept(tmp_path / "r.db", run_id, payload, "http://127.0.0.1:9")
    assert main(["submit", run_id, "--db", str(tmp_path / "r.db"), "--hub", hub.url,
                 "--token", user]) == 0
    out = capsys.readouterr().out
    assert f"submission of run {run_id}: accepted - {hub.url}/submissions/" in out
