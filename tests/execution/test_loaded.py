"""A correct solution never runs out of time on a loaded machine: HumanEval's canonical
solutions, recorded on a quiet machine, graded while every core runs a CPU burner."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest

from pytest_req2rank.execution import ReferenceCache, grade
from pytest_req2rank.models import Task
from pytest_req2rank.sandbox import ProcessSandbox
from pytest_req2rank.suites import load_humaneval

BASE_S = 5.0
"""The plugin's default base timeout (``--r2r-sandbox-timeout-ms=5000``)."""


@contextmanager
def burners(count: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    started = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
               for _ in range(count)]
    try:
        time.sleep(0.3)
        yield started
    finally:
        for burner in started:
            burner.kill()
            burner.wait()


def _grade_all(tasks: list[Task], box: ProcessSandbox, cache: ReferenceCache) -> dict[str, str]:
    def one(task: Task) -> tuple[str, str]:
        result = grade(task, {"solution.py": task.reference}, box, timeout_s=BASE_S,
                       reference_cache=cache)
        return task.task_id, f"{result.status}: {result.reason}"

    with ThreadPoolExecutor(2) as pool:  # two callers, like -n 2
        return dict(pool.map(one, tasks))


@pytest.mark.slow
def test_canonical_solutions_succeed_with_every_core_burning(tmp_path: Path) -> None:
    tasks = load_humaneval()
    cache = ReferenceCache(tmp_path)
    with ProcessSandbox() as box:
        quiet = _grade_all(tasks, box, cache)
        with burners(os.cpu_count() or 2) as started:
            loaded = _grade_all(tasks, box, cache)
            assert all(burner.poll() is None for burner in started)  # they burned throughout
    for statuses in (quiet, loaded):
        failed = {task: status for task, status in statuses.items()
                  if not status.startswith("success")}
        assert not failed, failed
    assert len(loaded) == 164
