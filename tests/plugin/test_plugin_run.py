"""The plugin end to end through pytester: items, statuses, outputs, options and xdist."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from pytest_req2rank.report import validate_results

DATA = Path(__file__).parent.parent / "data"
BENCHMARK = (Path(__file__).parents[2] / "benchmarks" / "test_benchmark.py").read_text()

EXPECTED_STATUS = {
    "st_ok": "success", "st_wrong": "wrong_answer", "st_syntax": "syntax_error",
    "st_crash": "runtime_error", "st_loop": "timeout", "st_partial": "wrong_answer",
    "io_ok": "success", "io_wrong": "wrong_answer", "io_syntax": "syntax_error",
    "io_crash": "runtime_error", "io_loop": "timeout", "io_partial": "wrong_answer",
}


@pytest.fixture
def bench(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project with the benchmark module, the status suite and its samples."""
    pytester.makepyfile(test_benchmark=BENCHMARK)
    for name in ("status_suite.jsonl", "status_samples.jsonl"):
        shutil.copy(DATA / name, pytester.path / name)
    return pytester


def results(pytester: pytest.Pytester, name: str = "results.json") -> dict:
    data = json.loads((pytester.path / name).read_text())
    validate_results(data)
    return data


SUITE = "--r2r-suite=jsonl:status_suite.jsonl"
FAST = "--r2r-sandbox-timeout-ms=750"
"""Each looping sample waits out 3 x this (test_grading grades the same answers at 0.5 s)."""


def test_offline_default_model_solves_everything(bench: pytest.Pytester) -> None:
    result = bench.runpytest(SUITE, "--r2r-json=results.json", "--r2r-seed=7", "-p", "no:xdist")
    result.assert_outcomes(passed=12)
    result.stdout.fnmatch_lines([
        f"req2rank: run * | seed 7 | suite jsonl:{bench.path / 'status_suite.jsonl'} (12 items) | "
        "model r2r/reference "
        "(offline default*",
        "req2rank: sandbox *",
        "*req2rank summary*",
        "score: 100.0/100*",
        "[[]status_suite[]]",
    ])
    data = results(bench)
    assert data["schema_version"] == 6
    assert data["run"]["seed"] == 7 and data["run"]["model"] == "r2r/reference"
    assert [i["status"] for i in data["items"]] == ["success"] * 12
    assert data["summary"]["metrics"]["eval/status_suite/accepted_at_1"] == 1.0


def test_each_kind_of_answer_gets_its_status_and_last_failed_reruns_only_failures(
    bench: pytest.Pytester
) -> None:
    model = "--r2r-model=r2r/samples:status_samples.jsonl"
    result = bench.runpytest(SUITE, FAST, model, "--r2r-json=results.json", "-p", "no:xdist")
    result.assert_outcomes(passed=2, failed=10)
    items = {i["task_id"]: i for i in results(bench)["items"]}
    assert {task: item["status"] for task, item in items.items()} == EXPECTED_STATUS
    for partial in ("st_partial", "io_partial"):
        assert 0 < items[partial]["pass_ratio"] < 1
    result.stdout.fnmatch_lines(["FAILED *status_suite/st_loop*timeout*"])
    summary = results(bench)["summary"]
    assert summary["phase0"]["status_suite"]["timeout_rate"] == pytest.approx(2 / 12)
    assert summary["phase0"]["status_suite"]["exec_success_rate"] == pytest.approx(6 / 12)
    rerun = bench.runpytest(SUITE, FAST, model, "--lf", "-p", "no:xdist")
    rerun.assert_outcomes(failed=10, passed=0)


def test_xdist_and_serial_collect_the_same_items(bench: pytest.Pytester) -> None:
    serial = bench.runpytest(SUITE, "--r2r-seed=3", "--r2r-sample=5", "--co", "-q", "-p", "no:xdist")
    ids = sorted(line for line in serial.outlines if "::test_task[" in line)
    assert len(ids) == 5
    parallel = bench.runpytest(SUITE, "--r2r-seed=3", "--r2r-sample=5", "-n", "2",
                               "--r2r-json=results.json")
    parallel.assert_outcomes(passed=5)
    ran = sorted(f"test_benchmark.py::test_task[{i['item_id']}]" for i in results(bench)["items"])
    assert ran == ids


def test_item_ids_select_and_junitxml(bench: pytest.Pytester) -> None:
    result = bench.runpytest(SUITE, "-k", "io_ok or st_ok", "--junitxml=junit.xml",
                             "--r2r-json=results.json", "-p", "no:xdist", "-v")
    result.assert_outcomes(passed=2, deselected=10)
    result.stdout.fnmatch_lines(["*test_task[[]status_suite/st_ok[]] PASSED*"])
    assert "status_suite/io_ok" in (bench.path / "junit.xml").read_text()
    summary = results(bench)["summary"]
    assert summary["items_total"] == 2 and summary["items_planned"] == 12


def test_store_keeps_every_item(bench: pytest.Pytester) -> None:
    bench.runpytest(SUITE, "--r2r-db=hist.db", "--r2r-sample=4", "-p", "no:xdist")
    db = sqlite3.connect(bench.path / "hist.db")
    (status,) = db.execute("select status from runs").fetchone()
    assert status == "finished"
    assert db.execute("select count(*) from items").fetchone() == (4,)
    qa_logs = list((bench.path / ".req2rank" / "runs").glob("*/qa.jsonl"))
    assert len(qa_logs) == 1 and len(qa_logs[0].read_text().splitlines()) == 4


def test_crashed_worker_loses_nothing_that_finished(bench: pytest.Pytester) -> None:
    bench.makepyfile(test_benchmark="""
        import os

        def test_task(r2r_task, r2r_evaluate):
            if r2r_task.task_id == "st_wrong":
                os._exit(3)
            r2r_evaluate(r2r_task)
    """)
    result = bench.runpytest(SUITE, "-n", "2", "--r2r-json=results.json", "--max-worker-restart=4")
    items = {i["task_id"]: i for i in results(bench)["items"]}
    assert len(items) == 12
    assert items["st_wrong"]["status"] == "sandbox_error"
    assert "worker crashed" in items["st_wrong"]["reason"]
    assert sum(1 for i in items.values() if i["status"] == "success") == 11
    assert result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--r2r-concurrency=zero"], "ERROR: --r2r-concurrency: expected an integer, got 'zero'"),
        (["--r2r-suite=jsonl:missing.jsonl"], "ERROR: --r2r-suite: *missing.jsonl: suite file not found*"),
        (["--r2r-model=r2r/samples:nope.jsonl"], "ERROR: --r2r-model: *nope.jsonl*"),
    ],
)
def test_bad_options_are_one_line_usage_errors(
    bench: pytest.Pytester, args: list[str], message: str
) -> None:
    result = bench.runpytest(*args, "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stderr.str()


def test_malformed_suite_names_file_and_line(bench: pytest.Pytester) -> None:
    bench.path.joinpath("bad.jsonl").write_text(
        (DATA / "status_suite.jsonl").read_text().splitlines()[0] + "\n" + '{"task_id": "x"}\n'
    )
    result = bench.runpytest("--r2r-suite=jsonl:bad.jsonl", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --r2r-suite: *bad.jsonl:2:1: cannot tell the form*"])


def test_samples_missing_a_task_is_a_clear_error(bench: pytest.Pytester) -> None:
    lines = (bench.path / "status_samples.jsonl").read_text().splitlines()
    bench.path.joinpath("partial.jsonl").write_text("\n".join(lines[:3]) + "\n")
    result = bench.runpytest(SUITE, "--r2r-model=r2r/samples:partial.jsonl", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --r2r-model: *9 of the 12 planned tasks*st_crash*"])


def test_options_come_from_ini_and_environment(
    bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench.makeini("[pytest]\nr2r_suite = jsonl:status_suite.jsonl\nr2r_seed = 11\n")
    monkeypatch.setenv("R2R_SEED", "12")
    result = bench.runpytest("--co", "-p", "no:xdist")
    result.stdout.fnmatch_lines(
        [f"req2rank: run * | seed 12 | suite jsonl:{bench.path / 'status_suite.jsonl'} *"])
