"""Items evaluated ahead of pytest: calls of different items overlap, up to ``--r2r-concurrency``
in flight per process; results are a serial run's; ``-x`` stops without waiting on calls in
flight; an item without a result within its ceiling is an ``api_error``; xdist's queue is read.

Runs that call litellm run in-process (tests/conftest.py keeps litellm across them).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _store_runs import count_rows

from pytest_req2rank.providers.fake import read_fake_log, reset_fake_state, write_fake_script
from pytest_req2rank.run import Evaluator

TASKS = 8
VOLATILE = ("started_at", "finished_at", "timings", "judge_time_s", "worker", "usage", "tests")


def _task(n: int) -> dict[str, Any]:
    return {"task_id": f"add{n}", "entry_point": f"add{n}",
            "prompt": f"def add{n}(a, b):\n    \"\"\"Return a + b + {n}.\"\"\"\n",
            "canonical_solution": f"    return a + b + {n}\n",
            "test": f"def check(candidate):\n    assert candidate(1, 2) == {3 + n}\n"
                    f"    assert candidate(0, 0) == {n}\n"}


def _answer(n: int, *, right: bool = True) -> str:
    body = f"a + b + {n}" if right else "a - b"
    return f"```python\ndef add{n}(a, b):\n    return {body}\n```"


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``suite.jsonl`` with TASKS tasks; returns the call log of the fake model's script,
    written by :func:`script`."""
    (pytester.path / "suite.jsonl").write_text(
        "".join(json.dumps(_task(n)) + "\n" for n in range(TASKS)))
    monkeypatch.chdir(pytester.path)
    yield pytester.path / "calls.jsonl"
    reset_fake_state()


def script(path: Path, monkeypatch: pytest.MonkeyPatch, delays: dict[int, float],
           wrong: tuple[int, ...] = ()) -> None:
    """``fake/coder`` answers task n after ``delays[n]`` seconds (right unless n is ``wrong``)."""
    rules = [{"match": rf"def add{n}\(", "responses": [
        {"text": _answer(n, right=n not in wrong), "delay_s": delays.get(n, 0.0),
         "usage": {"prompt_tokens": 50, "completion_tokens": 20}}]} for n in range(TASKS)]
    env = write_fake_script(path.parent / "script.json", {"models": {"coder": rules}},
                            log_path=path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)


def _stable(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in item.items() if k not in VOLATILE} for item in items]


RUN = ("--r2r-suite=jsonl:suite.jsonl", "--r2r-model=fake/coder", "--r2r-seed=5",
       "--r2r-judges=none")


def test_calls_of_different_items_overlap_and_results_match_a_serial_run(
    pytester: pytest.Pytester, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script(suite, monkeypatch, dict.fromkeys(range(TASKS), 0.3), wrong=(3,))
    ahead = pytester.runpytest(*RUN, "--r2r-concurrency=4", "--r2r-json=ahead.json",
                               "-p", "no:xdist")
    ahead.assert_outcomes(passed=TASKS - 1, failed=1)
    in_flight = [call["in_flight"] for call in read_fake_log(suite, preflight=False)]
    assert len(in_flight) == TASKS
    assert max(in_flight) == 4, "calls of different items did not overlap up to the cap"

    suite.unlink()
    serial = pytester.runpytest(*RUN, "--r2r-concurrency=1", "--r2r-json=serial.json",
                                "-p", "no:xdist")
    serial.assert_outcomes(passed=TASKS - 1, failed=1)
    assert max(call["in_flight"] for call in read_fake_log(suite, preflight=False)) == 1
    ahead_items = json.loads((pytester.path / "ahead.json").read_text())["items"]
    serial_items = json.loads((pytester.path / "serial.json").read_text())["items"]
    assert [item["item_id"] for item in ahead_items] == [f"suite/add{n}" for n in range(TASKS)]
    assert _stable(ahead_items) == _stable(serial_items)


def test_each_xdist_worker_starts_the_items_of_its_queue(
    pytester: pytest.Pytester, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script(suite, monkeypatch, dict.fromkeys(range(TASKS), 0.5))
    result = pytester.runpytest(*RUN, "--r2r-concurrency=4", "-n", "2")
    result.assert_outcomes(passed=TASKS)
    peak: dict[int, int] = defaultdict(int)
    for call in read_fake_log(suite, preflight=False):
        peak[call["pid"]] = max(peak[call["pid"]], call["in_flight"])
    # pytest's own look-ahead (nextitem) would give 2; the worker's queue gives 4 each.
    assert len(peak) == 2 and set(peak.values()) == {4}, peak


def test_x_stops_at_once_and_leaves_no_thread(
    pytester: pytest.Pytester, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first item fails at once; every other answer would take a minute.
    script(suite, monkeypatch, {n: 60.0 for n in range(1, TASKS)}, wrong=(0,))
    result = pytester.runpytest(*RUN, "--r2r-concurrency=8", "--r2r-json=results.json",
                                "--r2r-db=store.db", "-x", "-p", "no:xdist")
    result.assert_outcomes(failed=1)
    assert [call["outcome"] for call in read_fake_log(suite, preflight=False)] == ["text"], \
        "a call cancelled at the stop was answered"
    assert not [t for t in threading.enumerate() if t.name.startswith("r2r-item")]
    items = json.loads((pytester.path / "results.json").read_text())["items"]
    assert [(item["item_id"], item["status"]) for item in items] == [
        ("suite/add0", "wrong_answer")]


def test_ctrl_c_cancels_calls_in_flight_and_keeps_what_finished(
    pytester: pytest.Pytester, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first item finishes at once; every other answer would take a minute.
    script(suite, monkeypatch, {n: 60.0 for n in range(1, TASKS)})
    db, output = pytester.path / "store.db", pytester.path / "output.txt"
    # Python makes SIGINT a Ctrl-C only where it is not ignored, and a session started in the
    # background (`cmd &` in a script, nohup) hands it down ignored; a handler set here is the
    # default again in the run's process (exec resets it), as in a terminal.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    with output.open("w") as sink:
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "pytest", *RUN, "--r2r-concurrency=8",
                 "--r2r-db=store.db", "-p", "no:xdist"],
                cwd=pytester.path, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                stdout=sink, stderr=subprocess.STDOUT)
        finally:
            signal.signal(signal.SIGINT, previous)
        deadline = time.monotonic() + 120
        while process.poll() is None and time.monotonic() < deadline:
            if db.exists() and count_rows(db, "items") >= 1:
                break
            time.sleep(0.05)
        assert process.poll() is None, f"the run ended by itself:\n{output.read_text()[-3000:]}"
        process.send_signal(signal.SIGINT)
        # Calls of 60 s in flight: a run that waited for them would not end within this.
        code = process.wait(timeout=45)
    assert code == pytest.ExitCode.INTERRUPTED, output.read_text()[-3000:]
    assert count_rows(db, "items") == 1
    assert [call["outcome"] for call in read_fake_log(suite, preflight=False)] == ["text"]


LINELESS_INTERRUPT = """
import dis, sys, types

import pytest


def _loop(limit):
    found = []
    for n in range(10):
        if n % 3:
            found.append(n)
            if len(found) >= limit:
                break
    return sys._getframe()


def lineless_entry():
    \"\"\"A traceback entry at the jump back of _loop, which CPython 3.11 gives no line; None
    where every instruction has one.\"\"\"
    frame = _loop(100)
    for instruction in dis.get_instructions(frame.f_code):
        if instruction.opname == "JUMP_BACKWARD" and instruction.positions.lineno is None:
            entry = types.TracebackType(None, frame, instruction.offset, -1)
            return entry if entry.tb_lineno is None else None
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item):
    yield  # after the first item's result was reported (and kept)
    raise KeyboardInterrupt().with_traceback(lineless_entry())
"""


def test_ctrl_c_landing_on_a_line_without_a_number_is_reported(
    pytester: pytest.Pytester, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Ctrl-C above, landed where CPython 3.11 has no line number (as a busy machine
    makes it land): pytest reports the interrupt and exits 2 instead of crashing."""
    namespace: dict[str, Any] = {}
    exec(LINELESS_INTERRUPT, namespace)  # noqa: S102 - the conftest's own code, checked here
    if namespace["lineless_entry"]() is None:
        pytest.skip("this Python gives every instruction a line number: nothing to mend")
    script(suite, monkeypatch, {})
    # A plugin, not a conftest: a conftest's hooks skip the plugin's own items.
    pytester.makepyfile(lineless_interrupt=LINELESS_INTERRUPT)
    result = pytester.runpytest_subprocess(*RUN, "--r2r-db=store.db", "-p", "no:xdist",
                                           "-p", "lineless_interrupt")
    assert result.ret == pytest.ExitCode.INTERRUPTED, result.stdout.str()[-3000:]
    result.stdout.fnmatch_lines(["*KeyboardInterrupt*"])
    assert "TypeError" not in result.stdout.str() + result.stderr.str()
    assert count_rows(pytester.path / "store.db", "items") == 1

def test_an_item_without_a_result_within_its_ceiling_is_an_api_error(
    pytester: pytest.Pytester, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script(suite, monkeypatch, {2: 60.0})
    ceiling_s = Evaluator.ceiling_s  # the others keep theirs: on a busy machine 1 s is short
    monkeypatch.setattr(Evaluator, "ceiling_s",
                        lambda self, task: 1.0 if task.task_id == "add2" else ceiling_s(self, task))
    result = pytester.runpytest(*RUN, "--r2r-json=results.json", "-p", "no:xdist")
    result.assert_outcomes(passed=TASKS - 1, failed=1)
    items = {item["item_id"]: item for item in
             json.loads((pytester.path / "results.json").read_text())["items"]}
    lost = items["suite/add2"]
    assert lost["status"] == "api_error" and "ceiling of 1 s" in lost["reason"]
    assert all(item["status"] == "success" for key, item in items.items() if key != "suite/add2")


def test_benchmark_items_carry_a_pytest_timeout_past_their_ceiling(
    pytester: pytest.Pytester, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script(suite, monkeypatch, {})
    pytester.makeconftest("""
        import pytest

        @pytest.hookimpl(trylast=True)
        def pytest_collection_modifyitems(items):
            for item in items:
                marker = item.get_closest_marker("timeout")
                if marker is not None:
                    print("TIMEOUT", item.name, marker.args[0], marker.kwargs)
    """)
    result = pytester.runpytest(*RUN, "--collect-only", "-s", "-p", "no:xdist")
    lines = [line.split(" ", 3) for line in result.outlines if line.startswith("TIMEOUT")]
    assert len(lines) == TASKS
    # 2 calls at their worst (120 s API timeout, retries, waits) + sandbox + margins
    assert {float(line[2]) for line in lines} == {2 * (5 * 130 + 3 * 60) + 20 * 5 + 60 + 60}
    assert {line[3] for line in lines} == {"{'func_only': True}"}
    mine = pytester.runpytest(*RUN, "--collect-only", "-s", "-p", "no:xdist", "--timeout=7")
    assert not [line for line in mine.outlines if line.startswith("TIMEOUT")], \
        "a --timeout of the user's was overridden"
