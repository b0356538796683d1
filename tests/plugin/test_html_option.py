"""``--r2r-html`` through pytest: its ini spelling, the mistakes it stops at start with one line
(exit code 4), and a report that cannot be written after the run (exit code 7, the results
kept)."""

from __future__ import annotations

import pytest
from _usage import SAMPLES, SERIAL, SUITE, make_bench, one_line

from pytest_req2rank import report

EXIT_OUTPUT_FAILED = 7


@pytest.fixture
def bench(pytester: pytest.Pytester) -> pytest.Pytester:
    return make_bench(pytester)


def test_the_ini_spelling_writes_the_report_where_it_says(bench: pytest.Pytester) -> None:
    bench.makeini("[pytest]\nr2r_html = reports/run.html\n")
    result = bench.runpytest(SUITE, SAMPLES, *SERIAL)
    result.stdout.fnmatch_lines(["results: */.req2rank/runs/*/results.json",
                                 f"html report: {bench.path / 'reports' / 'run.html'}"])
    text = (bench.path / "reports" / "run.html").read_text()
    assert 'id="item-table"' in text and "st_wrong" in text


def test_off_writes_no_report(bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("R2R_HTML", "off")
    result = bench.runpytest(SUITE, SAMPLES, *SERIAL)
    assert "html report" not in result.stdout.str()
    assert not list(bench.path.glob("**/*.html"))


def test_a_test_path_taken_for_the_report_path_stops_at_start(bench: pytest.Pytester) -> None:
    # argparse gives an optional value the next argument: the test path, here
    one_line(bench.runpytest(SUITE, "--r2r-html", "test_benchmark.py", *SERIAL),
             "--r2r-html: expected a file name ending in .html, got '*test_benchmark.py' (a "
             "test path right after --r2r-html? write --r2r-html=PATH, or put it last)")


def test_a_directory_for_the_report_stops_at_start(bench: pytest.Pytester) -> None:
    bench.mkdir("taken.html")
    one_line(bench.runpytest(SUITE, "--r2r-html=taken.html", *SERIAL),
             "--r2r-html: */taken.html is a directory; pass a file path, e.g. "
             "*/taken.html/report.html")


def test_missing_report_libraries_stop_at_start(bench: pytest.Pytester,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report, "html_report_problem", lambda: "the HTML report needs "
                        "matplotlib: pip install 'pytest-req2rank[html]'")
    one_line(bench.runpytest(SUITE, "--r2r-html", *SERIAL),
             "--r2r-html: the HTML report needs matplotlib: pip install "
             "'pytest-req2rank[[]html]'")


def test_the_report_libraries_missing_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else real(name, *a))
    assert report.html_report_problem() == (
        "the HTML report needs matplotlib: pip install 'pytest-req2rank[html]'")


SABOTAGE = """
from pathlib import Path

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    Path("out").rmdir()
    Path("out").write_text("in the way")  # after the start's checks, before the report
"""


def test_a_report_that_cannot_be_written_after_the_run_exits_7_and_keeps_the_results(
    bench: pytest.Pytester
) -> None:
    bench.mkdir("out")
    bench.makeconftest(SABOTAGE)
    result = bench.runpytest(SUITE, SAMPLES, "--r2r-html=out/report.html", *SERIAL)
    assert result.ret == EXIT_OUTPUT_FAILED
    result.stdout.fnmatch_lines([
        "results: */.req2rank/runs/*/results.json",
        "error: could not write the HTML report */out/report.html (*)",
    ])
    assert "html report: " not in result.stdout.str()
