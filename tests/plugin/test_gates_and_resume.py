"""Quality gates (exit code 6) and resuming a run without repeating a model call."""

from __future__ import annotations

import json
import shlex
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing
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


def test_a_gated_run_asks_only_for_the_baseline_s_tasks(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """A baseline of 3 HumanEval tasks: the gated run, naming neither suite nor sample, runs
    and asks for exactly those 3; a sample given here is said in the header."""
    base = pytester.runpytest("--r2r-suite=humaneval", "--r2r-sample=3", "--r2r-json=base.json",
                              "-p", "no:xdist")
    assert base.ret == pytest.ExitCode.OK
    baseline = json.loads((pytester.path / "base.json").read_text())
    log = pytester.path / "calls.jsonl"
    env = write_fake_script(pytester.path / "script.json", {"models": {"coder": [
        {"responses": [{"text": "```python\ndef nothing():\n    return None\n```"}]}]}},
        log_path=log)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    try:
        gated = pytester.runpytest("--r2r-model=fake/coder", "--r2r-baseline=base.json",
                                   "--r2r-max-drop=100", "--r2r-json=gated.json", "-p", "no:xdist")
        assert gated.ret == pytest.ExitCode.OK
        gated.assert_outcomes(failed=3)
        assert len(read_fake_log(log, preflight=False)) == 3
        items = json.loads((pytester.path / "gated.json").read_text())["items"]
        assert [i["item_id"] for i in items] == [i["item_id"] for i in baseline["items"]]
        gated.stdout.fnmatch_lines([
            f"req2rank: run * | seed {baseline['run']['seed']} | suite humaneval (3 items) | *",
            ("req2rank: baseline gate against *base.json (run *): reusing its "
             f"--r2r-suite=humaneval, --r2r-sample=3, --r2r-seed={baseline['run']['seed']}"),
            "baseline * | difference -100.0 (CI95 -100.0 to -100.0, 3 pairs)"])
        wider = pytester.runpytest("--r2r-model=fake/coder", "--r2r-baseline=base.json",
                                   "--r2r-max-drop=100", "--r2r-sample=5", "-p", "no:xdist")
        wider.assert_outcomes(failed=5)
        assert len(read_fake_log(log, preflight=False)) == 3 + 5
        wider.stdout.fnmatch_lines([
            ("req2rank: baseline gate against *: reusing its --r2r-suite=humaneval, --r2r-seed=* "
             "| given here: --r2r-sample=5 (baseline: 3), so the comparison pairs only the "
             "requirements both runs have")])
    finally:
        reset_fake_state()


def test_baseline_errors_are_one_line(bench: pytest.Pytester) -> None:
    bench.path.joinpath("junk.json").write_text('{"schema_version": 1}')
    result = bench.runpytest(SUITE, "--r2r-baseline=junk.json", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --r2r-baseline: *junk.json: not a valid results JSON*"])


def test_a_baseline_s_suite_file_is_found_or_named(bench: pytest.Pytester) -> None:
    assert bench.runpytest(SUITE, "--r2r-json=base.json", "-p", "no:xdist").ret == 0
    bench.mkdir("moved")
    (bench.path / "status_suite.jsonl").rename(bench.path / "moved" / "status_suite.jsonl")
    missing = bench.runpytest("--r2r-baseline=base.json", "-p", "no:xdist")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines([
        ("ERROR: --r2r-baseline: *base.json ran --r2r-suite=jsonl:*status_suite.jsonl, which is "
         "not here; pass --r2r-suite=PATH to the same suite (or copy it there)")])
    named = bench.runpytest("--r2r-suite=jsonl:moved/status_suite.jsonl",
                            "--r2r-baseline=base.json", "-p", "no:xdist")
    assert named.ret == pytest.ExitCode.OK
    named.stdout.fnmatch_lines(["req2rank: baseline gate against *: reusing its --r2r-seed=*",
                                "gate baseline: PASSED *12 paired requirements*"])
    other = bench.runpytest("--r2r-suite=humaneval", "--r2r-baseline=base.json",
                            "-p", "no:xdist")
    assert other.ret == pytest.ExitCode.USAGE_ERROR
    other.stderr.fnmatch_lines([("ERROR: --r2r-baseline: *base.json ran suite 'jsonl:*', this "
                                 "run 'humaneval'; drop --r2r-suite to run the baseline's suite*")])


def test_resumed_run_makes_no_repeated_call(bench: pytest.Pytester, fake: Path) -> None:
    args = (SUITE, "--r2r-model=fake/coder", "--r2r-seed=4", "--r2r-db=store.db")
    # Written serially, resumed under xdist (the judged resume test runs both under xdist).
    first = bench.runpytest(*args, "--r2r-json=first.json", "-p", "no:xdist")
    first.assert_outcomes(passed=12)
    assert len(read_fake_log(fake, preflight=False)) == 12
    (run_id,) = run_ids(bench.path / "store.db")
    again = bench.runpytest(*args, f"--r2r-resume={run_id}", "--r2r-json=again.json",
                            "-n", "2")
    assert again.ret == pytest.ExitCode.OK
    again.assert_outcomes()  # every item kept: deselected, none run or reported again
    again.stdout.fnmatch_lines([f"req2rank: resuming {run_id}: 12 of 12 items kept (*), 0 to run"])
    assert len(read_fake_log(fake, preflight=False)) == 12, "a resumed run called the model again"
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
    kept = count_rows(db, "items")
    resumed = bench.runpytest(*args, f"--r2r-resume={run_id}", "--r2r-json=results.json")
    resumed.assert_outcomes(passed=12 - kept, deselected=kept)
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


def _resume_arguments(result: pytest.RunResult) -> list[str] | None:
    """The arguments of the command a stopped run printed to resume it (``pytest`` left out),
    or None when it printed none."""
    hints = [line.split("resume it with: ", 1)[1] for line in result.outlines
             if "stopped before its end; resume it with: " in line]
    if not hints:
        return None
    (hint,) = hints
    command = shlex.split(hint)
    assert command[0] == "pytest"
    return command[1:]


def _failed_ids(result: pytest.RunResult) -> set[str]:
    return {line.split("[", 1)[1].split("]", 1)[0] for line in result.outlines
            if line.startswith("FAILED ")}


def test_a_stopped_run_resumes_with_the_command_it_prints(bench: pytest.Pytester) -> None:
    """-x stops each session at its first unsolved item; the printed command resumes it,
    keeping (not reporting again) what earlier sessions finished, until the run is whole."""
    args = [SUITE, SAMPLES, FAST, "--r2r-seed=4", "--r2r-db=store.db", "-x", "-p", "no:xdist"]
    whole = bench.runpytest(*args[:4], "--r2r-db=whole.db", "--r2r-json=whole.json",
                            "-p", "no:xdist")
    assert whole.ret == pytest.ExitCode.TESTS_FAILED
    session = bench.runpytest(*args, "--r2r-json=r.json")
    session.assert_outcomes(passed=1, failed=1)
    (run_id,) = run_ids(bench.path / "store.db")
    command = _resume_arguments(session)
    assert command is not None
    assert [arg for arg in command if not arg.startswith("--basetemp=")] == [  # pytester's
        *args, "--r2r-json=r.json", f"--r2r-resume={run_id}"]
    sessions = 1
    while command is not None:
        kept = count_rows(bench.path / "store.db", "items")
        earlier = {item["item_id"] for item in
                   json.loads((bench.path / "r.json").read_text())["items"]}
        session = bench.runpytest(*command)
        sessions += 1
        outcomes = session.parseoutcomes()
        assert outcomes["deselected"] == kept
        ran = outcomes.get("passed", 0) + outcomes.get("failed", 0)
        assert not _failed_ids(session) & earlier, "a kept item was reported again"
        session.stdout.fnmatch_lines([
            f"req2rank: resuming {run_id}: {kept} of 12 items kept (*), {12 - kept} to run",
            (f"resumed: {kept} items kept from earlier sessions (model calls {kept}), {ran} run "
             f"in this session (model calls {ran}; *)")])
        command = _resume_arguments(session)
        assert sessions <= 12, "a resumed session made no progress"
    # the whole run, as if it had never stopped; its exit status counts the kept items
    assert session.ret == pytest.ExitCode.TESTS_FAILED
    statuses = [(i["item_id"], i["status"]) for i in
                json.loads((bench.path / "r.json").read_text())["items"]]
    assert statuses == [(i["item_id"], i["status"]) for i in
                        json.loads((bench.path / "whole.json").read_text())["items"]]
    assert sessions == 10  # each unsolved item stops one; the last one ends the run


def test_the_resume_command_names_a_store_the_environment_chose(
        bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    store = bench.path / "elsewhere" / "runs.db"
    monkeypatch.setenv("R2R_DB", str(store))
    stopped = bench.runpytest(SUITE, SAMPLES, FAST, "-x", "-p", "no:xdist")
    command = _resume_arguments(stopped)
    (run_id,) = run_ids(store)
    assert command is not None and f"--r2r-db={store}" in command
    monkeypatch.delenv("R2R_DB")  # another shell
    resumed = bench.runpytest(*command)
    resumed.stdout.fnmatch_lines([f"req2rank: resuming {run_id}: 2 of 12 items kept*"])


def test_items_lost_to_infrastructure_run_again(bench: pytest.Pytester, fake: Path) -> None:
    args = (SUITE, "--r2r-model=fake/coder", "--r2r-seed=4", "--r2r-db=store.db",
            "--r2r-json=r.json", "-p", "no:xdist")
    bench.runpytest(*args).assert_outcomes(passed=12)
    (run_id,) = run_ids(bench.path / "store.db")
    lost = ["status_suite/st_ok", "status_suite/io_ok"]
    with closing(sqlite3.connect(bench.path / "store.db")) as connection, connection:
        for item_id in lost:  # as a provider outage would have left them
            (result,) = connection.execute(
                "select result from items where run_id = ? and item_id = ?",
                [run_id, item_id]).fetchone()
            failed = {**json.loads(result), "status": "api_error", "reason": "outage"}
            connection.execute("update items set status = 'api_error', result = ? "
                               "where run_id = ? and item_id = ?",
                               [json.dumps(failed), run_id, item_id])
    resumed = bench.runpytest(*args, f"--r2r-resume={run_id}")
    resumed.assert_outcomes(passed=2, deselected=10)
    resumed.stdout.fnmatch_lines([(f"req2rank: resuming {run_id}: 10 of 12 items kept (*), 2 "
                                   "to run, 2 of them lost to infrastructure before")])
    items = json.loads((bench.path / "r.json").read_text())["items"]
    assert [i["status"] for i in items] == ["success"] * 12
    assert len(read_fake_log(fake, preflight=False)) == 12, "their answers were in the store: no new call"
