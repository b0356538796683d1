"""Checking a store path before a run: one line for each problem, and the file never changed."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_req2rank.errors import ConfigurationError
from pytest_req2rank.models import ItemResult
from pytest_req2rank.store import Store, StoreUnusable, check_store, directory_problem


@pytest.fixture
def store_file(tmp_path: Path) -> Path:
    """A real store with one run and one item."""
    path = tmp_path / "real.db"
    store = Store(path)
    store.start_run(run_id="r1", started_at="t", model="m", suite="s", seed=1, plan={})
    store.add_item("r1", ItemResult(item_id="d/0", dataset="d", task_id="0", model="m",
                                    status="success", score=100.0))
    store.close()
    return path


def check(path: Path) -> str:
    """The one-line message of check_store, with the file's bytes unchanged."""
    before = path.read_bytes() if path.is_file() else None
    with pytest.raises(StoreUnusable) as info:
        check_store(path)
    assert isinstance(info.value, ConfigurationError)
    if before is not None:
        assert path.read_bytes() == before
    message = str(info.value)
    assert "\n" not in message
    return message


def test_a_store_and_a_new_path_pass(store_file: Path, tmp_path: Path) -> None:
    before = store_file.read_bytes()
    check_store(store_file)
    assert store_file.read_bytes() == before
    new = tmp_path / "a" / "b" / "new.db"
    check_store(new)
    assert new.parent.is_dir() and not new.exists()
    assert list(new.parent.iterdir()) == []  # the write probe is gone
    empty = tmp_path / "empty.db"
    empty.touch()
    check_store(empty)


def test_garbage_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "garbage.db"
    path.write_text("garbage\n" * 100)
    assert check(path) == (f"{path}: not an SQLite database (file is not a database); "
                           "pass another path; the file is left as it is")


def test_a_truncated_or_damaged_store_is_corrupt(store_file: Path, tmp_path: Path) -> None:
    truncated = tmp_path / "truncated.db"
    shutil.copy(store_file, truncated)
    with truncated.open("r+b") as fh:
        fh.truncate(truncated.stat().st_size // 2)
    assert re.match(rf"{re.escape(str(truncated))}: the SQLite database is corrupt \(database disk "
                    r"image is malformed\); pass another path \(and recover what it holds with: "
                    rf"sqlite3 {re.escape(str(truncated))} \.recover \| sqlite3 NEW\.db\)",
                    check(truncated))
    damaged = tmp_path / "damaged.db"
    shutil.copy(store_file, damaged)
    with damaged.open("r+b") as fh:  # the schema, in the first page, after the header
        fh.seek(200)
        fh.write(b"\xa5" * 3000)
    assert "the SQLite database is corrupt" in check(damaged)


def test_another_programs_database_is_not_a_store(tmp_path: Path) -> None:
    foreign = tmp_path / "other.db"
    with sqlite3.connect(foreign) as connection:
        connection.execute("CREATE TABLE customers (id INTEGER)")
    assert check(foreign) == (f"{foreign}: an SQLite database, but not a req2rank store (its "
                              "tables: customers); pass another path; the file is left as it is")
    lookalike = tmp_path / "lookalike.db"
    with sqlite3.connect(lookalike) as connection:
        connection.execute("CREATE TABLE runs (run_id TEXT, started_at TEXT)")
    assert "(its table 'runs' has no column 'plan')" in check(lookalike)


def test_a_directory_or_a_path_under_a_file(tmp_path: Path) -> None:
    assert check(tmp_path) == f"{tmp_path}: is a directory; the store is a file, e.g. {tmp_path / 'req2rank.db'}"
    blocker = tmp_path / "file"
    blocker.write_text("x")
    message = check(blocker / "sub" / "x.db")
    assert message.startswith(f"{blocker / 'sub' / 'x.db'}: its directory {blocker / 'sub'} "
                              "cannot be created: Not a directory")


def _read_only_check(target: Path, path: Path) -> subprocess.CompletedProcess[str]:
    """Run check_store(path) in a process that sees ``target`` (a file or a directory)
    read-only: a read-only bind mount in a private mount namespace as root (root ignores
    permission bits), else the permission bits."""
    code = ("import sys\nfrom pathlib import Path\nfrom pytest_req2rank.store import check_store\n"
            "try:\n    check_store(Path(sys.argv[1]))\nexcept Exception as exc:\n"
            "    print(exc)\nelse:\n    print('ok')\n")
    command = [sys.executable, "-c", code, str(path)]
    if os.geteuid() != 0:
        for item in [target, *(target.iterdir() if target.is_dir() else ())]:
            item.chmod(0o555 if item.is_dir() else 0o444)
        return subprocess.run(command, capture_output=True, text=True, check=False)
    if subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False).returncode:
        pytest.skip("no private mount namespace here (unshare -m) to make a read-only directory")
    script = ('mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"')
    return subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
                           str(target), *command], capture_output=True, text=True, check=False)


def test_a_read_only_store_or_directory(store_file: Path, tmp_path: Path) -> None:
    before = store_file.read_bytes()
    done = _read_only_check(store_file, store_file)
    assert done.stdout.startswith(f"{store_file}: cannot be "), done
    done = _read_only_check(tmp_path, store_file)
    assert done.stdout.startswith(f"{store_file}: its directory {tmp_path} is not writable: "), done
    done = _read_only_check(tmp_path, tmp_path / "new.db")
    assert done.stdout.startswith(f"{tmp_path / 'new.db'}: its directory {tmp_path} is not "
                                  "writable: "), done
    assert store_file.read_bytes() == before


def test_directory_problem_names_the_reason(tmp_path: Path) -> None:
    assert directory_problem(tmp_path / "new") is None
    (tmp_path / "f").write_text("")
    assert directory_problem(tmp_path / "f") == f"{tmp_path / 'f'} cannot be created: File exists"
