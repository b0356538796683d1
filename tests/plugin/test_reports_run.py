"""The reports of a run through pytest: JUnit properties, the Markdown report and the GitHub
step summary, stratified Q&A samples, and Weights & Biases (offline, on the controller only)."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _usage import FAST, FUNCTION_ANSWER, PROGRAM_ANSWER, SAMPLES, SUITE, make_bench

from pytest_req2rank.providers.fake import reset_fake_state, write_fake_script
from pytest_req2rank.report import allocate, load_results, render_markdown


@pytest.fixture
def bench(pytester: pytest.Pytester) -> pytest.Pytester:
    return make_bench(pytester)


@pytest.fixture
def priced_coder(bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A fake coder that solves every task, 50 prompt and 20 completion tokens a call, priced."""
    usage = {"usage": {"prompt_tokens": 50, "completion_tokens": 20}}
    script = {"models": {"coder": [
        {"match": "standard input", "responses": [{"text": PROGRAM_ANSWER, **usage}]},
        {"responses": [{"text": FUNCTION_ANSWER, **usage}]},
    ]}, "prices": {"coder": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}}}
    for name, value in write_fake_script(bench.path / "script.json", script).items():
        monkeypatch.setenv(name, value)
    yield
    reset_fake_state()


@pytest.fixture
def wandb_offline(bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    pytest.importorskip("wandb", reason="the wandb extra is not installed")
    directory = bench.path / "wandb-dir"
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_DIR", str(directory))
    monkeypatch.setenv("WANDB_SILENT", "true")
    return directory


def properties(junit: Path) -> dict[str, dict[str, str]]:
    cases = ET.parse(junit).getroot().iter("testcase")
    return {case.get("name", ""): {p.get("name", ""): p.get("value", "")
                                   for p in case.iter("property")} for case in cases}


def offline_summary(directory: Path) -> dict[str, Any]:
    from report._wandb_log import read_offline_run  # the tests' reader of W&B's log

    (run_dir,) = (directory / "wandb").glob("offline-run-*")  # one run: the controller's
    return read_offline_run(run_dir).summary


@pytest.mark.parametrize("processes", [
    ("-p", "no:xdist"),
    # the workers send their properties to the controller, which alone logs to W&B
    pytest.param(("-n", "2"), marks=pytest.mark.slow),
])
def test_junit_properties_and_wandb(bench: pytest.Pytester, priced_coder: None,
                                    wandb_offline: Path, processes: tuple[str, str]) -> None:
    result = bench.runpytest(SUITE, "--r2r-model=fake/coder", "--r2r-json=results.json",
                             "--junitxml=junit.xml", "--r2r-wandb=proj", *processes)
    result.assert_outcomes(passed=12)
    document = json.loads((bench.path / "results.json").read_text())
    found = properties(bench.path / "junit.xml")
    assert len(found) == 12
    for item in document["items"]:
        assert found[f"test_task[{item['item_id']}]"] == {
            "r2r_status": item["status"], "r2r_score": "100.00", "r2r_pass_ratio": "1.0000",
            "r2r_tests": "3/3", "r2r_prompt_tokens": "50", "r2r_completion_tokens": "20",
            "r2r_cost_usd": f"{50e-6 + 40e-6:.6f}",
        }
    summary = offline_summary(wandb_offline)
    metrics = {name: value for name, value in document["summary"]["metrics"].items()
               if value is not None}
    assert metrics and {name: summary[name] for name in metrics} == metrics
    assert summary["run/score"] == document["summary"]["overall_score"] == 100.0
    assert summary["run/cost_usd"] == pytest.approx(document["summary"]["totals"]["cost_usd"])
    result.stdout.fnmatch_lines([f"wandb: {wandb_offline}/wandb/offline-run-*"])


@pytest.mark.slow  # a judged run end to end; the names alone: tests/report/test_wandb.py
def test_judge_metrics_in_wandb(bench: pytest.Pytester, wandb_offline: Path) -> None:
    result = bench.runpytest("--r2r-rounds=2", "--r2r-seed=3", "--r2r-complexity=C1",
                             "--r2r-json=results.json", "--r2r-wandb=team/proj",
                             "-p", "no:xdist")
    result.assert_outcomes(passed=2)
    judging = json.loads((bench.path / "results.json").read_text())["summary"]["judging"]
    summary = offline_summary(wandb_offline)
    (judge,) = judging["per_judge"]
    assert judge["judge"] == "r2r/static"
    assert summary["judge/r2r/static/scored"] == judge["scored"] == 2
    assert summary["judge/r2r/static/mean_overall"] == judge["mean_overall"]
    assert summary["judge/items_judged"] == judging["items_judged"]
    for dimension, value in judging["judge_dimensions"].items():
        assert summary[f"judge/dimensions/{dimension}"] == value


def test_markdown_step_summary_and_samples(bench: pytest.Pytester,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    step = bench.path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    args = (SUITE, SAMPLES, FAST, "--r2r-seed=9", "--r2r-qa-samples=5", "-p", "no:xdist")
    result = bench.runpytest(*args, "--r2r-json=out/results.json")
    result.stdout.fnmatch_lines([
        f"markdown report: {bench.path}/out/report.md",
        f"markdown report appended to the GitHub step summary {step}",
        "q&a samples: */qa_samples.jsonl (5 items, 5 per dataset, stratified by final status)",
    ])
    document = load_results(bench.path / "out" / "results.json")
    report = (bench.path / "out" / "report.md").read_text()
    assert report == render_markdown(document) and step.read_text() == report
    assert "## Q&A samples" in report
    (sample,) = document.summary.qa_samples.datasets.values()  # type: ignore[union-attr]
    assert sample.available == {"runtime_error": 2, "success": 2, "syntax_error": 2,
                                "timeout": 2, "wrong_answer": 4}
    assert sample.drawn == allocate(sample.available, 5) == dict.fromkeys(sample.available, 1)
    run_dir = bench.path / ".req2rank" / "runs" / document.run.id
    log = {r["item_id"]: r for r in map(json.loads, (run_dir / "qa.jsonl").read_text().splitlines())}
    drawn = [json.loads(line) for line in (run_dir / "qa_samples.jsonl").read_text().splitlines()]
    assert drawn == [log[item_id] for item_id in sample.item_ids]
    # the same seed draws the same items; the step summary gets a second report
    bench.runpytest(*args, "--r2r-json=again/results.json")
    again = load_results(bench.path / "again" / "results.json")
    assert again.summary.qa_samples == document.summary.qa_samples
    assert step.read_text().count("# req2rank report:") == 2


def test_wandb_missing_is_a_warning_and_the_outputs_are_kept(
        bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "wandb", None)
    result = bench.runpytest(SUITE, "--r2r-wandb=proj", "--r2r-json=results.json",
                             "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([
        "results: */results.json",
        "warning: wandb: the wandb package is not installed; pip install "
        "'pytest-req2rank[wandb]' (or pip install wandb)",
    ])
    assert load_results(bench.path / "results.json").summary.items_total == 12


@pytest.mark.parametrize(("option", "message"), [
    ("--r2r-qa-samples=-2", "--r2r-qa-samples: must be greater than or equal to 0, got '-2'"),
    ("--r2r-qa-samples=some", "--r2r-qa-samples: expected an integer, got 'some'"),
    ("--r2r-wandb=a/b/c", "--r2r-wandb: expected a project name, or ENTITY/PROJECT, *"
                          "got 'a/b/c'"),
])
def test_bad_report_options(bench: pytest.Pytester, option: str, message: str) -> None:
    result = bench.runpytest(SUITE, option, "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
