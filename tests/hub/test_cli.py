"""``req2rank-hub``: migrate, token create (kept hashed), bad values."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from pytest_req2rank.hub._database import alembic_config
from pytest_req2rank.hub.cli import main


def test_migrate_then_create_a_token_kept_hashed(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("R2R_HUB_DIR", str(tmp_path / "hub"))
    assert main(["migrate"]) == 0
    assert "latest schema" in capsys.readouterr().out
    assert main(["token", "create", "alice", "--admin"]) == 0
    token = capsys.readouterr().out.strip()
    assert token.startswith("r2r_") and len(token) == 52
    with sqlite3.connect(tmp_path / "hub" / "hub.db") as db:
        kept = [row[0] for row in db.execute("SELECT token_sha256 FROM tokens")]
        admin = db.execute("SELECT is_admin FROM users WHERE name = 'alice'").fetchone()[0]
        version = db.execute("SELECT version_num FROM alembic_version").fetchone()[0]
    assert kept and token not in kept and all(len(digest) == 64 for digest in kept)
    head = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    assert admin == 1 and version == head


def test_the_database_url_option_wins_over_the_environment(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("R2R_HUB_DATABASE_URL", f"sqlite:///{tmp_path / 'env.db'}")
    assert main(["--database-url", f"sqlite:///{tmp_path / 'given.db'}", "migrate"]) == 0
    assert (tmp_path / "given.db").exists() and not (tmp_path / "env.db").exists()


def test_a_bad_number_in_the_environment_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("R2R_HUB_NONCE_TTL", "six hours")
    assert main(["migrate"]) == 2
    assert capsys.readouterr().err.strip() == (
        "req2rank-hub: R2R_HUB_NONCE_TTL='six hours': not a number; give a int")


def test_an_unreachable_database_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                             ) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["--database-url", f"sqlite:///{blocker}/sub/hub.db", "migrate"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("req2rank-hub: database sqlite:///") and "\n" not in err


def test_the_signing_key_is_made_once_readable_by_its_owner_only(tmp_path: Path) -> None:
    import stat

    from pytest_req2rank.hub._receipts import Signer

    first, again = Signer(tmp_path / "key.pem"), Signer(tmp_path / "key.pem")
    assert first.public_key == again.public_key
    assert stat.S_IMODE((tmp_path / "key.pem").stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["key.pem"]
