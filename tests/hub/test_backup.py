"""``req2rank-hub backup``: a copy taken while the hub serves restores into a working hub
whose receipts still verify."""

from __future__ import annotations

import socket
import stat
from pathlib import Path

import pytest
from hub_server import make_payload, postgres_url, running_hub  # noqa: F401

from pytest_req2rank.hub import HubConfig, verify_receipt
from pytest_req2rank.hub.cli import main


def test_a_backup_taken_while_serving_restores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    live, copy = tmp_path / "live", tmp_path / "copy"
    with running_hub(live) as hub, hub.client(hub.token("alice")) as client:
        sent = [client.post("/api/submissions", json=make_payload(client)).json()
                for _ in range(3)]
        public_key = client.get("/api/key").json()["public_key"]
        monkeypatch.setenv("R2R_HUB_DIR", str(live))
        monkeypatch.setenv("R2R_HUB_KEY", str(hub.config.key_path))
        assert main(["backup", str(copy)]) == 0  # the hub keeps its connections open
        after = client.post("/api/submissions", json=make_payload(client))
        assert after.status_code == 201, after.text
    assert capsys.readouterr().out.startswith("req2rank-hub: backed up sqlite:///")
    assert sorted(p.name for p in copy.iterdir()) == ["hub.db", "signing-key.pem"]
    assert stat.S_IMODE((copy / "signing-key.pem").stat().st_mode) == 0o600

    restored_config = HubConfig.from_env({"R2R_HUB_DIR": str(copy)})  # as `serve` reads it
    with running_hub(copy, database_url=restored_config.database_url,
                     key_path=restored_config.key_path) as restored, restored.client() as client:
        assert client.get("/api/key").json()["public_key"] == public_key
        for submission in sent:
            kept = client.get(f"/api/submissions/{submission['id']}").json()
            assert kept["receipt"] == submission["receipt"]
            assert verify_receipt(kept["receipt"], public_key)
        missing = client.get(f"/api/submissions/{after.json()['id']}")
    assert missing.status_code == 404  # made after the backup


def test_a_backup_does_not_overwrite_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("R2R_HUB_DIR", str(tmp_path / "live"))
    assert main(["migrate"]) == 0
    from pytest_req2rank.hub._receipts import Signer

    Signer(tmp_path / "live" / "signing-key.pem")
    assert main(["backup", str(tmp_path / "copy")]) == 0
    capsys.readouterr()
    assert main(["backup", str(tmp_path / "copy")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"req2rank-hub: {tmp_path / 'copy' / 'hub.db'} exists already; back up into an empty "
        "directory")


def test_backing_up_without_a_hub_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("R2R_HUB_DIR", str(tmp_path / "none"))
    assert main(["backup", str(tmp_path / "copy")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"req2rank-hub: no hub database at {(tmp_path / 'none' / 'hub.db').resolve()}; give the "
        "hub's --database-url or R2R_HUB_DIR")
    assert not (tmp_path / "copy").exists()


def test_another_database_is_one_line(capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("R2R_HUB_KEY", "/srv/hub/signing-key.pem")
    url = "mysql+pymysql://hub:secret@db.example.org/hub"
    assert main(["--database-url", url, "backup", "/nonexistent/backup"]) == 2
    assert capsys.readouterr().err.strip() == (
        "req2rank-hub: backup copies SQLite and PostgreSQL databases; back up this mysql "
        "database with its own tool and copy the signing key /srv/hub/signing-key.pem")


def test_a_postgresql_server_that_does_not_answer_is_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_req2rank.hub._backup import BackupError, _pg_tool

    try:
        _pg_tool("pg_dump")
    except BackupError as exc:
        pytest.skip(exc.message)
    (tmp_path / "key.pem").write_text("kept")
    monkeypatch.setenv("R2R_HUB_KEY", str(tmp_path / "key.pem"))
    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]
    url = f"postgresql+psycopg://hub:secret@127.0.0.1:{port}/hub"
    assert main(["--database-url", url, "backup", str(tmp_path / "copy")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("req2rank-hub: pg_dump: ") and "Connection refused" in err, err
    assert "\n" not in err and "secret" not in err
    assert list((tmp_path / "copy").iterdir()) == []  # no partial dump left


@pytest.mark.slow  # a PostgreSQL server
def test_a_postgresql_backup_restores_with_pg_restore(
        postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    import subprocess

    import psycopg
    from sqlalchemy.engine import make_url

    from pytest_req2rank.hub._backup import _pg_tool, libpq_url

    copy = tmp_path / "copy"
    with running_hub(tmp_path / "live", database_url=postgres_url) as hub, \
            hub.client(hub.token("pg-backup")) as client:
        sent = [client.post("/api/submissions", json=make_payload(client)).json()
                for _ in range(2)]
        public_key = client.get("/api/key").json()["public_key"]
        monkeypatch.setenv("R2R_HUB_KEY", str(hub.config.key_path))
        assert main(["--database-url", postgres_url, "backup", str(copy)]) == 0
    assert "pg_restore --no-owner" in capsys.readouterr().out
    assert sorted(p.name for p in copy.iterdir()) == ["hub.dump", "signing-key.pem"]
    assert stat.S_IMODE((copy / "signing-key.pem").stat().st_mode) == 0o600

    address, _ = libpq_url(make_url(postgres_url))
    with psycopg.connect(address, autocommit=True) as admin:
        admin.execute("CREATE DATABASE restored")
    restored_url = make_url(postgres_url).set(database="restored")
    restored_address, _ = libpq_url(restored_url)
    subprocess.run([_pg_tool("pg_restore"), "--no-owner", f"--dbname={restored_address}",
                    str(copy / "hub.dump")], check=True, capture_output=True)
    with running_hub(copy, database_url=restored_url.render_as_string(hide_password=False),
                     key_path=copy / "signing-key.pem") as restored, restored.client() as client:
        assert client.get("/api/key").json()["public_key"] == public_key
        for submission in sent:
            kept = client.get(f"/api/submissions/{submission['id']}").json()
            assert kept["receipt"] == submission["receipt"]
            assert verify_receipt(kept["receipt"], public_key)
