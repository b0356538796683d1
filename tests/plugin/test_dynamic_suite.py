"""The dynamic suite through pytest: drawn from the run seed, reproducible, solved by the reference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_req2rank.generation import bundled_library

BENCHMARK = (Path(__file__).parents[2] / "benchmarks" / "test_benchmark.py").read_text()


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


def _one_template_library(bench: pytest.Pytester) -> None:
    """``library/``: the shipped template ``rate-limiter`` alone."""
    text = bundled_library().joinpath("rate-limiter.toml").read_text(encoding="utf-8")
    (bench.mkdir("library") / "rate-limiter.toml").write_text(text, encoding="utf-8")


def test_filters_that_leave_nothing_are_a_usage_error(bench: pytest.Pytester) -> None:
    _one_template_library(bench)
    result = bench.runpytest("--r2r-templates=library", "--r2r-complexity=C4", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --r2r-suite: dynamic: *"])


@pytest.mark.parametrize(("where", "old", "new"), [
    ("cli", "--r2r-seeds", "--r2r-templates"),
    ("env", "environment variable R2R_SEEDS", "R2R_TEMPLATES"),
    ("ini", "ini option r2r_seeds", "r2r_templates"),
])
def test_the_former_seeds_spellings_still_work_and_warn_once(
    bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, where: str, old: str, new: str
) -> None:
    _one_template_library(bench)
    args = ["--r2r-rounds=3", "--co", "-q", "-p", "no:xdist"]
    if where == "cli":
        args.append("--r2r-seeds=library")
    elif where == "env":
        monkeypatch.setenv("R2R_SEEDS", "library")
    else:
        bench.makeini("[pytest]\nr2r_seeds = library\n")
    result = bench.runpytest(*args)
    assert result.ret == pytest.ExitCode.OK
    assert len(ids := _ids(result)) == 3 and all("rate-limiter" in line for line in ids)
    warning = f"*req2rank: {old} is deprecated; use {new}"  # the category: the next test
    result.stdout.fnmatch_lines([warning])
    assert sum("is deprecated" in line for line in result.outlines) == 1


def test_a_former_spelling_is_a_usage_error_when_warnings_are_errors(
    bench: pytest.Pytester,
) -> None:
    _one_template_library(bench)
    result = bench.runpytest("--r2r-seeds=library", "-W", "error::pytest.PytestDeprecationWarning",
                             "--r2r-rounds=1", "--co", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --r2r-seeds is deprecated; use --r2r-templates"])


def test_a_session_that_plans_on_every_worker_warns_once(
    bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Environment variables alone do not start a run: each xdist worker plans it when it
    collects the benchmark module, and only the controller warns."""
    _one_template_library(bench)
    for name, value in {"R2R_SEEDS": "library", "R2R_ROUNDS": "2", "R2R_JUDGES": "none"}.items():
        monkeypatch.setenv(name, value)
    result = bench.runpytest("-n", "2")
    result.assert_outcomes(passed=2, warnings=1)
    warning = "*req2rank: environment variable R2R_SEEDS is deprecated; use R2R_TEMPLATES"
    result.stdout.fnmatch_lines([warning])
