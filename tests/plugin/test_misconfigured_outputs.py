"""The store and the outputs, misconfigured: stopped at start with one line (exit code 4) and
the user's file unchanged; an output that cannot be written after the items ran exits 7 and
says where the results are instead."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from _usage import DATA, SERIAL, SUITE, make_bench, one_line, real_store

from pytest_req2rank.report import validate_results
from pytest_req2rank.scoring import EXIT_GATE_FAILED

EXIT_OUTPUT_FAILED = 7


@pytest.fixture
def bench(pytester: pytest.Pytester) -> pytest.Pytester:
    return make_bench(pytester)


# --- the store -----------------------------------------------------------------------------

@pytest.mark.parametrize(("make", "expected"), [
    (lambda p: p.write_text("garbage\n" * 100),
     "--r2r-db: */store.db: not an SQLite database (file is not a database); pass another path; "
     "the file is left as it is"),
    (lambda p: (real_store(p), os.truncate(p, p.stat().st_size // 2)),
     "--r2r-db: */store.db: the SQLite database is corrupt (database disk image is malformed); "
     "pass another path (and recover what it holds with: sqlite3 */store.db .recover | sqlite3 "
     "NEW.db); the file is left as it is"),
    (lambda p: p.mkdir(),
     "--r2r-db: */store.db: is a directory; the store is a file, e.g. */store.db/req2rank.db"),
    (lambda p: sqlite3.connect(p).execute("CREATE TABLE customers (id INTEGER)"),
     "--r2r-db: */store.db: an SQLite database, but not a req2rank store (its tables: customers)*"),
])
@pytest.mark.parametrize("workers", [SERIAL, ("-n", "2")])
def test_an_unusable_store_stops_at_start_and_stays_as_it_was(
    bench: pytest.Pytester, make, expected: str, workers: tuple[str, ...]
) -> None:
    """One line, no INTERNALERROR traceback, and the user's file left untouched."""
    path = bench.path / "store.db"
    make(path)
    before = path.read_bytes() if path.is_file() else None
    one_line(bench.runpytest(SUITE, "--r2r-db=store.db", *workers), expected)
    assert (path.read_bytes() if path.is_file() else None) == before


def _run_read_only(pytester: pytest.Pytester, target: Path, *args: str) -> pytest.RunResult:
    """pytest in a process that sees ``target`` read-only: a read-only bind mount in a private
    mount namespace as root (root ignores permission bits), else the permission bits."""
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args]
    if os.geteuid() != 0:
        for item in [target, *(target.iterdir() if target.is_dir() else ())]:
            item.chmod(0o555 if item.is_dir() else 0o444)
        return pytester.run(*command)
    if subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False).returncode:
        pytest.skip("no private mount namespace here (unshare -m) to make a path read-only")
    script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'
    return pytester.run("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
                        str(target), *command)


@pytest.mark.slow  # four sessions under a read-only mount (~20 s)
def test_a_read_only_store_or_output_directory_stops_at_start(bench: pytest.Pytester) -> None:
    store = real_store(bench.path / "store.db")
    before = store.read_bytes()
    one_line(_run_read_only(bench, store, SUITE, "--r2r-db=store.db", *SERIAL),
             "--r2r-db: */store.db: cannot be written (Read-only file system); make it writable*"
             if os.geteuid() == 0 else "--r2r-db: */store.db: cannot be written (*")
    assert store.read_bytes() == before
    outputs = bench.mkdir("outputs")
    one_line(_run_read_only(bench, outputs, SUITE, "--r2r-db=outputs/new.db", *SERIAL),
             "--r2r-db: */outputs/new.db: its directory */outputs is not writable: *; pass a path "
             "in a writable directory")
    one_line(_run_read_only(bench, outputs, SUITE, "--r2r-json=outputs/r.json", *SERIAL),
             "--r2r-json: */outputs is not writable: *; pass a path in a writable directory")
    one_line(_run_read_only(bench, outputs, SUITE, "--r2r-dir=outputs/run", *SERIAL),
             "--r2r-dir: */outputs/run/req2rank.db: its directory */outputs/run cannot be created*")
    assert list(outputs.iterdir()) == []


# --- the results JSON ----------------------------------------------------------------------

def test_an_unwritable_results_path_stops_at_start(bench: pytest.Pytester) -> None:
    bench.mkdir("taken")
    one_line(bench.runpytest(SUITE, "--r2r-json=taken", *SERIAL),
             "--r2r-json: */taken is a directory; pass a file path, e.g. */taken/results.json")
    bench.path.joinpath("file").write_text("x")
    one_line(bench.runpytest(SUITE, "--r2r-json=file/r.json", *SERIAL),
             "--r2r-json: */file cannot be created: *; pass a path in a writable directory")


SABOTAGE = """
import shutil
from pathlib import Path

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    # After the items ran, before the results are written: the output directory is gone,
    # a file in its place.
    out = Path("out")
    shutil.rmtree(out)
    out.write_text("in the way")
"""


@pytest.mark.parametrize(("args", "status"), [
    ((), EXIT_OUTPUT_FAILED),
    (("--r2r-model=r2r/samples:samples.jsonl",), EXIT_OUTPUT_FAILED),
    (("--r2r-model=r2r/samples:samples.jsonl", "--r2r-fail-under=90"), EXIT_GATE_FAILED),
])
def test_results_that_cannot_be_written_after_the_run_are_kept_and_exit_non_zero(
    bench: pytest.Pytester, args: tuple[str, ...], status: int
) -> None:
    """It printed one error line and exited 0. Now: exit 7, also over pytest's 1 for unsolved
    items (a failed gate keeps its 6), the results written where the run's Q&A log is, and the
    items in the store."""
    for name in ("status_suite.jsonl", "status_samples.jsonl"):  # st_ok, solved; st_wrong, not
        lines = (DATA / name).read_text().splitlines()[:2]
        (bench.path / name.replace("status_", "")).write_text("\n".join(lines) + "\n")
    bench.makeconftest(SABOTAGE)
    result = bench.runpytest("--r2r-suite=jsonl:suite.jsonl", "--r2r-json=out/results.json",
                             *args, *SERIAL)
    assert result.ret == status
    result.stdout.fnmatch_lines([
        "q&a log: */.req2rank/runs/*/qa.jsonl | store: */.req2rank/req2rank.db",
        "error: could not write the results JSON */out/results.json (File exists); written "
        "to */.req2rank/runs/*/results.json instead; its items are in the store "
        "*/.req2rank/req2rank.db (run *)",
    ])
    assert "results: " not in result.stdout.str()
    kept = next((bench.path / ".req2rank" / "runs").glob("*/results.json"))
    document = json.loads(kept.read_text())
    validate_results(document)
    assert len(document["items"]) == 2
    with sqlite3.connect(bench.path / ".req2rank" / "req2rank.db") as connection:
        stored = connection.execute("SELECT count(*) FROM items WHERE run_id = ?",
                                    [document["run"]["id"]]).fetchone()[0]
    assert stored == 2
