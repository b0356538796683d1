"""When the plugin works: inert in unrelated sessions, a suite file alone is enough, and a
benchmark module alone starts the offline default run (also under xdist)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

DATA = Path(__file__).parent.parent / "data"
BENCHMARK = (Path(__file__).parents[2] / "benchmarks" / "test_benchmark.py").read_text()

UNRELATED = """
import sys

def test_unrelated():
    assert 1 + 1 == 2

def test_nothing_heavy_was_imported():
    heavy = sorted(name for name in ("pydantic", "litellm", "numpy", "sqlite_utils",
                                     "pytest_req2rank.settings", "pytest_req2rank.sandbox",
                                     "pytest_req2rank.plan", "pytest_req2rank.models")
                   if name in sys.modules)
    assert heavy == []
"""


@pytest.fixture
def suite_dir(pytester: pytest.Pytester) -> pytest.Pytester:
    """A directory that holds nothing but a suite file (12 tasks, one per kind of answer)."""
    shutil.copy(DATA / "status_suite.jsonl", pytester.path / "my_suite.jsonl")
    return pytester


def _runs(root: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(root / ".req2rank" / "req2rank.db") as db:
        return db.execute("SELECT run_id, seed FROM runs").fetchall()


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_an_unrelated_session_does_not_notice_the_plugin(
    pytester: pytest.Pytester, xdist: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_unrelated=UNRELATED)
    monkeypatch.setenv("R2R_MODEL", "gpt-4o")  # the environment configures a run, never starts one
    result = pytester.runpytest_subprocess(*xdist)
    result.assert_outcomes(passed=2)
    assert "req2rank:" not in result.stdout.str() + result.stderr.str()  # pytest lists plugins
    assert not (pytester.path / ".req2rank").exists()


def test_a_suite_file_alone_is_benchmarked(suite_dir: pytest.Pytester) -> None:
    result = suite_dir.runpytest("--r2r-suite=jsonl:my_suite.jsonl", "-v")
    result.assert_outcomes(passed=12)
    result.stdout.fnmatch_lines([
        "req2rank: run * | suite jsonl:*my_suite.jsonl (12 items) | model r2r/reference*",
        "req2rank: sandbox isolation *",
        "req2rank::test_task[[]my_suite/st_ok[]] PASSED*",
        "*req2rank summary*",
        "score: 100.0/100*",
    ])
    assert len(_runs(suite_dir.path)) == 1


@pytest.mark.slow  # four sessions, two under xdist (~12 s)
def test_a_suite_file_alone_with_xdist_k_and_last_failed(suite_dir: pytest.Pytester) -> None:
    args = ("--r2r-suite=jsonl:my_suite.jsonl", "--r2r-model=r2r/samples:samples.jsonl",
            "--r2r-sandbox-timeout-ms=750")
    shutil.copy(DATA / "status_samples.jsonl", suite_dir.path / "samples.jsonl")
    first = suite_dir.runpytest(*args, "-n", "2")
    first.assert_outcomes(passed=2, failed=10)
    again = suite_dir.runpytest(*args, "--lf", "-k", "st_ok or st_wrong or io_loop",
                                "-p", "no:xdist")
    again.assert_outcomes(failed=2, deselected=10)
    again.stdout.fnmatch_lines(["FAILED req2rank::test_task[[]my_suite/st_wrong[]]*"])


def test_a_benchmark_module_alone_starts_the_offline_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_benchmark=BENCHMARK)
    result = pytester.runpytest()
    result.assert_outcomes(passed=10)
    result.stdout.fnmatch_lines([
        "req2rank: run * | suite dynamic (10 items) | model r2r/reference (offline default*",
        "req2rank: sandbox isolation full *",
        "collected 10 items",
        "*req2rank summary*",
    ])


@pytest.mark.slow  # the fast loop keeps the serial run of the same module
def test_a_benchmark_module_alone_under_xdist_is_one_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_benchmark=BENCHMARK)
    result = pytester.runpytest("-n", "2")
    result.assert_outcomes(passed=10)
    result.stdout.fnmatch_lines(["req2rank: run * | suite dynamic (10 items)*",
                                 "*req2rank summary*", "items: 10/10 finished*"])
    [(run_id, _seed)] = _runs(pytester.path)
    document = json.loads((pytester.path / ".req2rank" / "runs" / run_id / "results.json")
                          .read_text())
    assert len({item["item_id"] for item in document["items"]}) == 10


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_configuration_error_found_while_collecting_is_a_usage_error(
    pytester: pytest.Pytester, xdist: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_benchmark=BENCHMARK)
    monkeypatch.setenv("R2R_SUITE", "jsonl:missing.jsonl")
    result = pytester.runpytest_subprocess(*xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output and "Traceback" not in output
    result.stdout.fnmatch_lines(["*req2rank: --r2r-suite*missing.jsonl*"])


def _results(root: Path, run_id: str) -> dict:
    return json.loads((root / ".req2rank" / "runs" / run_id / "results.json").read_text())


def _isolation(root: Path, run_id: str) -> str:
    with sqlite3.connect(root / ".req2rank" / "req2rank.db") as db:
        return db.execute("SELECT isolation FROM runs WHERE run_id = ?", [run_id]).fetchone()[0]


def test_the_isolation_level_is_in_the_summary_results_and_store(suite_dir: pytest.Pytester) -> None:
    result = suite_dir.runpytest("--r2r-suite=jsonl:my_suite.jsonl", "-q")
    result.assert_outcomes(passed=12)
    result.stdout.fnmatch_lines(["run * | sandbox isolation full"])
    assert "warning: sandbox isolation" not in result.stdout.str()
    [(run_id, _seed)] = _runs(suite_dir.path)
    document = _results(suite_dir.path, run_id)
    assert document["run"]["isolation"] == "full"
    assert not any("isolation" in warning for warning in document["summary"]["warnings"])
    assert _isolation(suite_dir.path, run_id) == "full"


def test_a_weaker_sandbox_named_explicitly_is_marked_everywhere(suite_dir: pytest.Pytester) -> None:
    result = suite_dir.runpytest("--r2r-suite=jsonl:my_suite.jsonl",
                                 "--r2r-sandbox=process:unshare", "-v")
    result.assert_outcomes(passed=12)
    result.stdout.fnmatch_lines([
        "req2rank: sandbox isolation namespaces, weaker than the default (full), chosen by "
        "--r2r-sandbox=process:unshare | *WARNING*",
        "run * | sandbox isolation namespaces",
        "warning: sandbox isolation 'namespaces' *weaker than the default*",
    ])
    quiet = suite_dir.runpytest("--r2r-suite=jsonl:my_suite.jsonl",
                                "--r2r-sandbox=process:unshare", "-q")
    quiet.stdout.fnmatch_lines(["run * | sandbox isolation namespaces",
                                "warning: sandbox isolation 'namespaces' *"])
    for run_id, _seed in _runs(suite_dir.path):
        document = _results(suite_dir.path, run_id)
        assert document["run"]["isolation"] == "namespaces"
        assert any("weaker than the default" in w for w in document["summary"]["warnings"])
        assert _isolation(suite_dir.path, run_id) == "namespaces"
