"""Shared by the plugin tests: a benchmark project over the status suite, its options and
answers, and the one-line check."""

from __future__ import annotations

import shutil
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest
from pytester_output import shown_lines

from pytest_req2rank.models import ItemResult
from pytest_req2rank.providers.fake import write_fake_script
from pytest_req2rank.store import Store

DATA = Path(__file__).parent.parent / "data"
BENCHMARK = (Path(__file__).parents[2] / "benchmarks" / "test_benchmark.py").read_text()
SUITE = "--r2r-suite=jsonl:status_suite.jsonl"
SAMPLES = "--r2r-model=r2r/samples:status_samples.jsonl"
FAST = "--r2r-sandbox-timeout-ms=750"
"""Each looping sample waits out 3 x this."""
FUNCTION_ANSWER = "```python\ndef add(a: int, b: int) -> int:\n    return a + b\n```"
PROGRAM_ANSWER = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"
SERIAL = ("-p", "no:xdist")


def make_bench(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project with the benchmark module, the status suite and its samples."""
    pytester.makepyfile(test_benchmark=BENCHMARK)
    for name in ("status_suite.jsonl", "status_samples.jsonl"):
        shutil.copy(DATA / name, pytester.path / name)
    return pytester


def use_fake_script(directory: Path, script: dict[str, Any],
                    monkeypatch: pytest.MonkeyPatch) -> Path:
    """Serve ``script`` from ``directory/script.json`` to this test and the processes it
    starts; returns the call log, ``directory/calls.jsonl``."""
    log = directory / "calls.jsonl"
    for name, value in write_fake_script(directory / "script.json", script,
                                         log_path=log).items():
        monkeypatch.setenv(name, value)
    return log


def one_line(result: pytest.RunResult, pattern: str) -> str:
    """The run stopped at start with exactly one line (exit code 4) matching ``pattern``,
    no INTERNALERROR and no traceback."""
    lines = shown_lines(result.outlines + result.errlines)
    shown = "\n".join(lines)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, shown
    assert "INTERNALERROR" not in shown and "Traceback" not in shown, shown
    assert len(lines) == 1, shown
    assert fnmatch(lines[0], f"ERROR: {pattern}"), lines[0]
    return lines[0]


def real_store(path: Path) -> Path:
    """A store with one run and one item."""
    store = Store(path)
    store.start_run(run_id="r1", started_at="t", model="m", suite="s", seed=1, plan={})
    store.add_item("r1", ItemResult(item_id="d/0", dataset="d", task_id="0", model="m",
                                    status="success", score=100.0))
    store.close()
    return path
