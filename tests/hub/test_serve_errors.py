"""``req2rank-hub serve``: what keeps it from starting is one line on stderr, no traceback."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from pytest_req2rank.hub.cli import main


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    return err


@pytest.fixture(autouse=True)
def _hub_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("R2R_HUB_DIR", str(tmp_path / "hub"))
    monkeypatch.delenv("R2R_HUB_DATABASE_URL", raising=False)
    monkeypatch.delenv("R2R_HUB_KEY", raising=False)


def test_a_port_in_use(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 1
    assert _error(capsys) == (f"req2rank-hub: cannot listen on 127.0.0.1:{port}: Address already "
                              "in use; stop what uses it or give another --host/--port")


def test_a_bad_database_url(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--database-url", "hub.db", "serve"]) == 2
    assert _error(capsys) == (
        "req2rank-hub: the database URL (--database-url, R2R_HUB_DATABASE_URL) is not a "
        "SQLAlchemy URL; give sqlite:///PATH or postgresql+psycopg://USER:PASSWORD@HOST/DB")


def test_an_unknown_database_kind(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--database-url", "mysqlx://hub@localhost/hub", "serve"]) == 1
    assert _error(capsys).startswith("req2rank-hub: database mysqlx://hub@localhost/hub: ")


def test_an_unreachable_postgresql_hides_its_password(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]
    url = f"postgresql+psycopg://hub:secret@127.0.0.1:{port}/hub?connect_timeout=5"
    assert main(["--database-url", url, "serve"]) == 1
    err = _error(capsys)
    assert err.startswith(f"req2rank-hub: database postgresql+psycopg://hub:***@127.0.0.1:{port}")
    assert "secret" not in err


def test_a_signing_key_path_it_cannot_create(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("R2R_HUB_KEY", str(tmp_path / "a-file" / "key.pem"))
    assert main(["serve", "--port", "1"]) == 1
    assert _error(capsys) == (f"req2rank-hub: signing key {tmp_path / 'a-file' / 'key.pem'}: File "
                              f"exists: {tmp_path / 'a-file'}; set R2R_HUB_KEY (or R2R_HUB_DIR) "
                              "to a file the hub can create and read")


def test_a_signing_key_that_is_not_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "key.pem").write_text("-----BEGIN PRIVATE KEY-----\nnot a key\n")
    monkeypatch.setenv("R2R_HUB_KEY", str(tmp_path / "key.pem"))
    assert main(["serve", "--port", "1"]) == 2
    assert _error(capsys) == (f"req2rank-hub: {tmp_path / 'key.pem'}: not an Ed25519 private "
                              "key; remove it to make a new one")


@pytest.mark.parametrize(("argv", "environ", "shown"), [
    (["serve", "--port", "70000"], {}, "'70000'"),
    (["serve"], {"R2R_HUB_PORT": "eighty"}, "'eighty'"),
])
def test_a_port_that_is_not_one(argv: list[str], environ: dict[str, str], shown: str,
                                monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"req2rank-hub serve: error: argument --port: {shown} is not a port; give 1-65535 "
        "(--port or R2R_HUB_PORT)")
