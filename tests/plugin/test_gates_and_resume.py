"""Quality gates (exit code 6) and resuming a run without repeating a model call."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from _store_runs import count_rows, kill_after, run_ids

from pytest_req2rank.providers.fake import read_fake_log, reset_fake_state, write_fake_script
from pytest_req2rank.scoring import EXIT_GATE_FAILED

DATA = Path(__file__).parent.parent / "data"
BENCHMARK = (Path(__file__).parents[2] / "benchmarks" / "test_benchmark.py").read_text()
SUITE = "--r2r-suite=jsonl:status_suite.jsonl"
SAMPLES = "--r2r-model=r2r/samples:status_samples.jsonl"
FAST = "--r2r-sandbox-timeout-ms=750"
"""Each looping sample waits out 3 x this (test_grading grades the same answers at 0.5 s)."""

FUNCTION_ANSWER = "```python\ndef add(a: int, b: int) -> int:\n    return a + b\n```"
PROGRAM_ANSWER = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"


@pytest.fixture
def bench(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_benchmark=BENCHMARK)
    for name in ("status_suite.jsonl", "status_samples.jsonl"):
        shutil.copy(DATA / name, pytester.path / name)
    return pytester


@pytest.fixture
def fake(bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fake coder that solves every task of the status suite, slowly, logging each call."""
    answer = {"usage": {"prompt_tokens": 50, "completion_tokens": 20}, "delay_s": 0.2}
    script = {"models": {"coder": [
        {"match": "standard input", "responses": [{"text": PROGRAM_ANSWER, **answer}]},
        {"responses": [{"text": FUNCTION_ANSWER, **answer}]},
    ]}}
    log = bench.path / "calls.jsonl"
    env = write_fake_script(bench.path / "script.json", script, log_path=log)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    yield log
    reset_fake_state()


def test_fail_under_decides_the_exit_code(bench: pytest.Pytester) -> None:
    # 2 of 12 solved: score 16.7, Wilson CI95 4.7-44.8; unsolved items alone do not fail a gated run
    passing = bench.runpytest(SUITE, SAMPLES, FAST, "--r2r-fail-under=15", "-p", "no:xdist")
    assert passing.ret == pytest.ExitCode.OK
    passing.stdout.fnmatch_lines(["gate fail-under: PASSED (score 16.7 >= 15)"])
    failing = bench.runpytest(SUITE, SAMPLES, FAST, "--r2r-fail-under=15", "--r2r-gate-on=ci-low",
                              "-p", "no:xdist")
    assert failing.ret == EXIT_GATE_FAILED
    failing.stdout.fnmatch_lines(["gate fail-under: FAILED (lower CI95 bound 4.7 < 15)"])


def test_baseline_regression_fails_and_a_repeat_passes(bench: pytest.Pytester) -> None:
    first = bench.runpytest(SUITE, "--r2r-json=base.json", "-p", "no:xdist")
    assert first.ret == pytest.ExitCode.OK
    seed = json.loads((bench.path / "base.json").read_text())["run"]["seed"]
    worse = bench.runpytest(SUITE, SAMPLES, FAST, "--r2r-baseline=base.json", "-p", "no:xdist")
    assert worse.ret == EXIT_GATE_FAILED
    worse.stdout.fnmatch_lines([
        f"req2rank: run * | seed {seed} |*",
        "baseline * (*base.json): baseline 100.0 | candidate 16.7 | difference -83.3 *12 pairs)",
        "  regressed most: *",
        "gate baseline: FAILED (regression: *",
    ])
    same = bench.runpytest(SUITE, "--r2r-baseline=base.json", "-p", "no:xdist")
    assert same.ret == pytest.ExitCode.OK
    same.stdout.fnmatch_lines(["gate baseline: PASSED (no regression: difference +0.0*"])


def test_baseline_errors_are_one_line(bench: pytest.Pytester) -> None:
    bench.path.joinpath("junk.json").write_text('{"schema_version": 1}')
    result = bench.runpytest(SUITE, "--r2r-baseline=junk.json", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --r2r-baseline: *junk.json: not a valid results JSON*"])


def test_resumed_run_makes_no_repeated_call(bench: pytest.Pytester, fake: Path) -> None:
    args = (SUITE, "--r2r-model=fake/coder", "--r2r-seed=4", "--r2r-db=store.db")
    # Written serially, resumed under xdist (the judged resume test runs both under xdist).
    first = bench.runpytest(*args, "--r2r-json=first.json", "-p", "no:xdist")
    first.assert_outcomes(passed=12)
    assert len(read_fake_log(fake, preflight=False)) == 12
    (run_id,) = run_ids(bench.path / "store.db")
    again = bench.runpytest(*args, f"--r2r-resume={run_id}", "--r2r-json=again.json",
                            "-n", "2")
    again.assert_outcomes(passed=12)
    assert len(read_fake_log(fake, preflight=False)) == 12, "a resumed run called the model again"
    # Each run checked its model once before its first item (not an item's call).
    assert len(read_fake_log(fake, preflight=True)) == 2
    first_items = json.loads((bench.path / "first.json").read_text())["items"]
    again_items = json.loads((bench.path / "again.json").read_text())["items"]
    assert again_items == first_items


def test_killed_run_resumes_to_the_same_result(bench: pytest.Pytester, fake: Path) -> None:
    args = [SUITE, "--r2r-model=fake/coder", "--r2r-seed=4", "--r2r-db=store.db", "-p", "no:xdist"]
    db = bench.path / "store.db"
    kill_after(args, bench.path, db, finished=4)
    cached = count_rows(db, "llm_cache")
    calls_before = len(read_fake_log(fake, preflight=False))
    # Items run ahead of pytest: calls of items not yet stored may have been answered (and
    # cached) before the kill, all of them at most.
    assert 4 <= cached <= calls_before <= 12
    (run_id,) = run_ids(db)
    resumed = bench.runpytest(*args, f"--r2r-resume={run_id}", "--r2r-json=results.json")
    resumed.assert_outcomes(passed=12)
    items = json.loads((bench.path / "results.json").read_text())["items"]
    assert [item["status"] for item in items] == ["success"] * 12
    new_calls = len(read_fake_log(fake, preflight=False)) - calls_before
    assert new_calls == 12 - cached, "the resumed run repeated a call whose answer was kept"
    # The preflight's answers are never cached: each run asked its own.
    assert len(read_fake_log(fake, preflight=True)) == 2


def test_resume_of_an_unknown_run_is_a_clear_error(bench: pytest.Pytester) -> None:
    result = bench.runpytest(SUITE, "--r2r-resume=nope", "--r2r-db=store.db", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --r2r-resume: no store at *store.db, so no run 'nope' to resume*"])
