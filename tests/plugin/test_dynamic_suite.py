"""The dynamic suite through pytest: drawn from the run seed, reproducible, solved by the reference."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

BENCHMARK = (Path(__file__).parents[2] / "benchmarks" / "test_benchmark.py").read_text()
SEEDS = Path(__file__).parents[2] / "seeds"


@pytest.fixture
def bench(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_benchmark=BENCHMARK)
    return pytester


def _ids(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if "::test_task[dynamic/" in line]


def test_same_seed_same_requirements_other_seed_others(bench: pytest.Pytester) -> None:
    first = _ids(bench.runpytest("--r2r-rounds=12", "--r2r-seed=5", "--co", "-q", "-p", "no:xdist"))
    again = _ids(bench.runpytest("--r2r-rounds=12", "--r2r-seed=5", "--co", "-q", "-p", "no:xdist"))
    other = _ids(bench.runpytest("--r2r-rounds=12", "--r2r-seed=6", "--co", "-q", "-p", "no:xdist"))
    assert len(first) == 12 and first == again
    assert len(set(first) & set(other)) < 6
    assert all("::test_task[dynamic/r" in line for line in first)


def test_reference_solves_drawn_requirements_under_xdist(bench: pytest.Pytester) -> None:
    result = bench.runpytest("--r2r-rounds=8", "--r2r-seed=3", "--r2r-complexity=C1,C2",
                             "--r2r-judges=none", "--r2r-json=results.json", "-n", "2")
    result.assert_outcomes(passed=8)
    result.stdout.fnmatch_lines(["*suite dynamic (8 items)*", "score: 100.0/100 = mean item score*"])
    items = json.loads((bench.path / "results.json").read_text())["items"]
    assert {item["complexity"] for item in items} <= {"C1", "C2"}
    for item in items:
        assert item["kind"] == "dynamic" and item["score"] == 100.0
        assert item["requirement"]["title"] and "probes" not in item["requirement"]
        assert item["pass_ratio_by_priority"]["must"] == 1.0


def test_filters_that_leave_nothing_are_a_usage_error(bench: pytest.Pytester) -> None:
    library = bench.mkdir("library")
    shutil.copy(SEEDS / "rate-limiter.toml", library)
    result = bench.runpytest("--r2r-seeds=library", "--r2r-complexity=C4", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --r2r-suite: dynamic: *"])
