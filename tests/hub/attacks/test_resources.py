"""Attacks on the hub's resources and pages, over HTTP against a served hub: a big body sent
without a valid token, a decompression bomb, bodies past either size limit, one address
submitting without end, nonces fetched without end, rows that never go away, pages framed
or fed script, Swagger UI from another site, submitters' local paths published, the
database and key readable by other users."""

from __future__ import annotations

import gzip
import json
import os
import socket
import stat
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from hub_server import (
    Hub,
    fresh_nonce,
    make_items,
    make_payload,
    nonce_request,
    rechain,
    refused,
    running_hub,
)
from sqlalchemy import text

from pytest_req2rank.hub._limits import OTHER_BODY_BYTES
from pytest_req2rank.hub.cli import main
from pytest_req2rank.submit import HubClient

BIG = 19_600_000
"""A body well under the limit (the one measured stalling a worker before)."""


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    with running_hub(Path(tmp_path_factory.mktemp("resources")),
                     max_document_bytes=1_000_000) as running:
        yield running


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    with running_hub(Path(tmp_path_factory.mktemp("limited")), daily_nonces=3,
                     max_payload_bytes=200_000) as running:
        yield running


def raw_post(hub: Hub, path: str, headers: dict[str, str], sent: bytes,
             length: int | None = None) -> tuple[int, dict[str, Any]]:
    """POST with ``Content-Length: length`` (default: all of ``sent``) of which only ``sent``
    goes out: the hub must answer without the rest (else this times out after 30 s)."""
    address = urlsplit(hub.url)
    lines = [f"POST {path} HTTP/1.1", f"Host: {address.netloc}",
             f"Content-Length: {len(sent) if length is None else length}",
             *(f"{name}: {value}" for name, value in headers.items()), "", ""]
    with socket.create_connection((address.hostname, address.port), timeout=30) as sock:
        sock.sendall("\r\n".join(lines).encode() + sent)
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += sock.recv(65536) or b"\r\n\r\n"
        head, _, body = answer.partition(b"\r\n\r\n")
        size = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:"))
        while len(body) < size:
            body += sock.recv(65536)
    return int(head.split()[1]), json.loads(body)


def test_a_big_body_without_a_valid_token_is_answered_before_it_is_read(hub: Hub) -> None:
    start = b'{"nonce": "n", "results": {"padding": "' + b"x" * 65536
    for headers in ({}, {"Authorization": "Bearer r2r_forged"}):
        status, answer = raw_post(hub, "/api/submissions",
                                  {"Content-Type": "application/json", **headers}, start, BIG)
        assert status == 401 and answer["error"]["code"] == "unauthenticated"


@pytest.mark.parametrize("path", ["/api/nonces", "/api/tokens/github", "/api/submissions/1/flags",
                                  "/api/admin/flags/1/resolve", "/signout"])
def test_a_big_body_to_any_other_endpoint_is_refused_before_it_is_read(hub: Hub, path: str
                                                                      ) -> None:
    """Bodies other than a submission's are read before the route signs their sender in (a
    nonce's settings, a report, a form): refused by their declared length, or once past the
    small limit when they stream in without one, never read whole or parsed."""
    start = b'{"model": "m", "settings": {"padding": "' + b"x" * 65536
    status, answer = raw_post(hub, path, {"Content-Type": "application/json"}, start, BIG)
    assert status == 413 and answer["error"]["code"] == "payload_too_large"
    assert f"exceeds {OTHER_BODY_BYTES} bytes" in answer["error"]["message"]
    with hub.client() as anonymous:
        streamed = anonymous.post(path, content=iter([b"x" * 65536] * 32))  # 2 MiB, no length
    assert streamed.status_code == 413, streamed.text
    assert streamed.json()["error"]["code"] == "payload_too_large"


def _bomb(inflated: int) -> bytes:
    """A gzip stream of ``inflated`` zero bytes (about a thousandth of that compressed)."""
    squeezer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1 << 20)
    return b"".join([*(squeezer.compress(block) for _ in range(inflated >> 20)),
                     squeezer.flush()])


def test_a_decompression_bomb_is_refused_while_it_streams_in(hub: Hub) -> None:
    bomb = _bomb(64 << 20)  # 64 MiB of zeros in 65 KB; the hub takes 1 MB inflated
    token = hub.token("bomber")
    status, answer = raw_post(hub, "/api/submissions", {
        "Content-Type": "application/json", "Content-Encoding": "gzip",
        "Authorization": f"Bearer {token}"}, bomb[:32 * 1024], len(bomb))
    assert status == 413 and answer["error"]["code"] == "payload_too_large"
    assert "inflates to more than 1000000 bytes" in answer["error"]["message"]


def test_a_gzip_submission_is_taken_and_a_broken_one_refused(hub: Hub) -> None:
    token = hub.token("gzipper")
    with hub.client(token) as client:
        payload = make_payload(client, model="res/gzip")
        body = json.dumps(payload).encode()
        cut = client.post("/api/submissions", content=gzip.compress(body)[:-20],
                          headers={"Content-Encoding": "gzip"})
        garbage = client.post("/api/submissions", content=b"not gzip at all",
                              headers={"Content-Encoding": "gzip"})
        brotli = client.post("/api/submissions", content=body, headers={"Content-Encoding": "br"})
        not_json = client.post("/api/submissions", content=b"{nope")
    with HubClient(hub.url, token) as sender:
        reply = sender.submit(payload)
    assert "cut short" in refused(cut, 400, "invalid_encoding")
    refused(garbage, 400, "invalid_encoding")
    refused(brotli, 415, "unsupported_encoding")
    refused(not_json, 400, "invalid_json")
    assert reply["status"] == "accepted" and reply["model"] == "res/gzip"


def test_a_run_past_the_sent_limit_as_json_submits_compressed(limited: Hub) -> None:
    """Results sent as JSON (about 36 KB a dynamic item) put a run of about 550 items past
    the 20 MB a hub took; the client sends them gzip-compressed, and the hub limits what is
    sent and what it inflates to apart: a run past the sent limit as JSON is taken."""
    token = limited.token("big-run")
    body = "".join(f"    total = step_{n}(total)  # one line of a long answer\n"
                   for n in range(800))
    with limited.client(token) as client:
        items = [item.model_copy(update={"response": item.response + "\n" + body})
                 for item in make_items()]
        payload = make_payload(client, items=items, model="res/compressed")
        plain = client.post("/api/submissions", json=payload)
    assert len(json.dumps(payload).encode()) > limited.config.max_payload_bytes
    refused(plain, 413, "payload_too_large")
    with HubClient(limited.url, token) as sender:
        reply = sender.submit(payload)
    assert reply["status"] == "accepted" and reply["model"] == "res/compressed"


def test_a_body_past_the_sent_limit_is_refused_with_or_without_its_length(limited: Hub
                                                                          ) -> None:
    with limited.client(limited.token("bulky")) as client:
        declared = client.post("/api/submissions", content=gzip.compress(os.urandom(300_000)),
                               headers={"Content-Encoding": "gzip"})
        streamed = client.post("/api/submissions", content=iter([b"x" * 100_000] * 3))
    for response in (declared, streamed):
        assert response.status_code == 413
        assert response.json()["error"]["code"] == "payload_too_large"


def test_one_address_submits_a_few_runs_a_minute_whoever_signs_them(tmp_path: Path) -> None:
    codes = []
    with running_hub(tmp_path, submit_rate="3/minute") as crowded:
        for n in range(4):  # four users, one address
            with crowded.client(crowded.token(f"sybil{n}")) as client:
                response = client.post("/api/submissions", json=make_payload(client))
                codes.append(response.status_code)
    assert codes[:3] == [201, 201, 201]
    assert codes[3] == 429 and response.json()["error"]["code"] == "rate_limited"


def test_a_user_fetches_a_few_nonces_a_day(limited: Hub) -> None:
    with limited.client(limited.token("hoarder")) as client:
        for _ in range(3):
            fresh_nonce(client)  # each answered 201
        fourth = client.post("/api/nonces", json=nonce_request())
    assert "fetched 3 nonces today" in refused(fourth, 429, "nonce_limit")


def test_what_expired_long_ago_is_pruned_a_used_nonce_kept_and_an_attempt_counted(
        hub: Hub, capsys: pytest.CaptureFixture[str]) -> None:
    """Nonces never used are pruned; an abandoned attempt of a model keeps its row (the
    leaderboard counts it) without its declared settings."""
    token = hub.token("pruned")
    with hub.client(token) as client:
        used = make_payload(client, model="res/pruned")
        assert client.post("/api/submissions", json=used).status_code == 201
        abandoned = [fresh_nonce(client, "res/pruned")["nonce"] for _ in range(3)]
        older = fresh_nonce(client, "res/pruned")["nonce"]
    hub.sql("UPDATE nonces SET model = NULL, declared = NULL WHERE value = :v", v=older)
    long_ago = datetime.now(UTC) - timedelta(seconds=hub.config.retention_s + 60)
    hub.sql("UPDATE nonces SET expires_at = :t WHERE user_id = (SELECT id FROM users WHERE "
            "name = 'pruned')", t=long_ago)
    hub.sql("UPDATE tokens SET revoked_at = :t WHERE user_id = (SELECT id FROM users WHERE "
            "name = 'pruned')", t=long_ago)
    with hub.app.state.engine.connect() as connection:
        before = connection.scalar(text("SELECT count(*) FROM nonces"))
    capsys.readouterr()
    assert main(["--database-url", hub.config.database_url, "prune"]) == 0
    assert "3 abandoned attempts kept without their declared settings" in capsys.readouterr().out
    with hub.app.state.engine.connect() as connection:
        left = dict(connection.execute(text(
            "SELECT value, declared FROM nonces WHERE user_id = (SELECT id FROM users WHERE "
            "name = 'pruned')")).all())
        tokens = connection.scalar(text("SELECT count(*) FROM tokens WHERE user_id = (SELECT "
                                        "id FROM users WHERE name = 'pruned')"))
        after = connection.scalar(text("SELECT count(*) FROM nonces"))
    assert set(left) == {used["nonce"], *abandoned} and before - after == 1 and tokens == 0
    assert left[used["nonce"]] is not None
    assert all(left[nonce] is None for nonce in abandoned)
    with hub.client() as client:
        attempts = client.get("/api/models/res/pruned").json()["attempts"]
    assert [(row["user"], row["attempts"], row["abandoned"]) for row in attempts] == [
        ("pruned", 4, 3)]


def test_every_response_forbids_framing_sniffing_and_foreign_content(hub: Hub) -> None:
    with hub.client(hub.token("headers")) as client:
        submitted = client.post("/api/submissions", json=make_payload(client, model="res/h"))
        responses = [client.get(path) for path in (
            "/", "/models/res/h", f"/submissions/{submitted.json()['id']}", "/signin",
            "/no-such-page", "/api/leaderboard", "/healthz", "/static/hub.css")]
        responses.append(client.post("/api/submissions",
                                     content=b"x" * (hub.config.max_payload_bytes + 1)))
        docs = client.get("/docs")
    for response in [*responses, docs]:
        assert response.headers["x-frame-options"] == "DENY", response.url
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "same-origin"
        policy = response.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy and "http" not in policy
    for response in responses:
        policy = response.headers["content-security-policy"]
        assert "script-src" not in policy and "unsafe" not in policy
        assert "default-src 'none'" in policy
    assert responses[-1].status_code == 413
    assert "script-src 'self' 'sha256-" in docs.headers["content-security-policy"]


def test_swagger_ui_comes_from_the_hub_itself(hub: Hub) -> None:
    with hub.client() as client:
        docs = client.get("/docs")
        assets = [client.get(f"/docs/assets/{name}") for name in ("swagger-ui-bundle.js",
                                                                 "swagger-ui.css")]
    assert docs.status_code == 200 and "/docs/assets/swagger-ui-bundle.js" in docs.text
    assert "http://" not in docs.text and "https://" not in docs.text
    assert [asset.status_code for asset in assets] == [200, 200]
    assert "SwaggerUIBundle" in assets[0].text and len(assets[0].content) > 500_000


def test_published_results_hide_the_submitters_local_paths(hub: Hub) -> None:
    with hub.client(hub.token("paths")) as client:
        payload = make_payload(client, model="res/paths")
        run = payload["results"]["run"]
        run["settings"]["dir"] = "/home/ada/work/.req2rank"
        run["sandbox"] = "process: read-only /usr only; /home/ada/.venv/bin/python3.12"
        submitted = client.post("/api/submissions", json=rechain(payload))  # as a run writes it
        assert submitted.status_code == 201, submitted.text
        published = client.get(f"/api/submissions/{submitted.json()['id']}/evidence").json()
    shown = published["results"]["run"]
    assert shown["settings"]["dir"] == "…/.req2rank"
    assert shown["sandbox"] == "process: read-only /usr only; …/python3.12"
    assert "/home/ada" not in json.dumps(published)
    with hub.app.state.engine.connect() as connection:  # kept as submitted: its chain binds it
        kept = connection.scalar(text("SELECT document FROM submissions WHERE id = :id"),
                                 {"id": submitted.json()["id"]})
    assert json.loads(kept)["run"]["settings"]["dir"] == "/home/ada/work/.req2rank"


def test_the_database_its_journal_and_the_key_are_the_owners_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("R2R_HUB_KEY", str(tmp_path / "hub" / "key.pem"))
    with running_hub(tmp_path / "hub") as fresh, fresh.client(fresh.token("modes")) as client:
        assert client.post("/api/submissions", json=make_payload(client)).status_code == 201
        files = [tmp_path / "hub" / name for name in ("hub.db", "hub.db-wal", "key.pem")]
        modes = {path.name: stat.S_IMODE(path.stat().st_mode) for path in files}
        assert main(["--database-url", fresh.config.database_url, "backup",
                     str(tmp_path / "copy")]) == 0
    assert modes == {"hub.db": 0o600, "hub.db-wal": 0o600, "key.pem": 0o600}
    assert stat.S_IMODE((tmp_path / "copy" / "hub.db").stat().st_mode) == 0o600
