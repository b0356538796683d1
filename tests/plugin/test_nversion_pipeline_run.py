"""``pytest --r2r-nversion=3 --r2r-model=fake/...``: a remote model's versions come from the
generation pipeline, run once per task; its record reaches every version item, the results
JSON and the summary's statistics."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _store_runs import run_ids
from _usage import SERIAL
from nversion._scripts import ADD3, RIGHT, WRONG, as_json, fenced, plans, script

from pytest_req2rank.providers.fake import read_fake_log, reset_fake_state, write_fake_script
from pytest_req2rank.report import validate_results

USAGE = {"prompt_tokens": 50, "completion_tokens": 20}


@pytest.fixture
def pipeline_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    task = {"task_id": "add3", "entry_point": "add3", "prompt": ADD3.prompt,
            "canonical_solution": "    return a + b + 3\n", "test": ADD3.test}
    (pytester.path / "suite.jsonl").write_text(json.dumps(task) + "\n")
    monkeypatch.chdir(pytester.path)
    rules: list[dict[str, Any]] = script(
        [fenced(WRONG), *[fenced(code) for code in RIGHT]],
        understanding=[{"text": "It adds."}, as_json({
            "summary": "add", "inputs": "two ints", "outputs": "an int", "edge_cases": [],
            "family": "arithmetic"})], plan_answers=[plans(2)], count=3)
    for rule in rules:
        rule["responses"] = [dict(r, usage=USAGE) for r in rule["responses"]]
    env = write_fake_script(pytester.path / "script.json", {
        "models": {"coder": rules},
        "prices": {"coder": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}}},
        log_path=pytester.path / "calls.jsonl")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    yield pytester.path / "calls.jsonl"
    reset_fake_state()


def test_the_pipeline_makes_the_versions_and_reports_its_statistics(
        pytester: pytest.Pytester, pipeline_suite: Path) -> None:
    result = pytester.runpytest("--r2r-nversion=3", "--r2r-suite=jsonl:suite.jsonl",
                                "--r2r-model=fake/coder", "--r2r-seed=5", "--r2r-faults=code",
                                "--r2r-concurrency=1", "--r2r-json=nv.json", "-v", *SERIAL)
    calls = read_fake_log(pipeline_suite, preflight=False)
    assert len(read_fake_log(pipeline_suite, preflight=True)) == 1
    data = json.loads((pytester.path / "nv.json").read_text())
    validate_results(data)
    versions = [i for i in data["items"] if i["nversion"]["role"] == "version"]
    assert [i["item_id"] for i in versions] == [f"nversion/add3/v{k}" for k in range(3)]
    records = [i["nversion"]["generation"] for i in versions]
    assert records[0] == records[1] == records[2]  # one pipeline run for the task
    record = records[0]
    assert record["end"] == "complete" and record["calls"] == len(calls)
    assert record["retries"] >= 1 and record["transitions"][0]["action"] == "retry"
    assert record["transitions"][-1]["target"] == "complete"
    assert record["config"]["p_qn1"] == 0.7 and record["family"] == "arithmetic"
    assert all(i["status"] == "success" for i in versions)
    assert len({i["code"]["solution.py"] for i in versions}) == 3
    assert all(i["nversion"]["lineage"]["passed"] for i in versions)
    assert sum(i["usage"]["calls"] for i in versions) == len(calls)
    stats = data["summary"]["nversion"]["generation"]
    assert stats["tasks"] == 1 and stats["accepted"] == 3 and stats["calls"] == len(calls)
    assert stats["retries"] == record["retries"]
    assert stats["tokens_per_accepted"] == pytest.approx(70 * len(calls) / 3, abs=0.001)
    assert stats["cost_per_accepted"] == pytest.approx(90e-6 * len(calls) / 3)
    assert data["run"]["settings"]["nv_repairs"] == 3
    result.stdout.fnmatch_lines([
        "req2rank: N-version: 3 versions per task, 1 tasks*generation pipeline (HILE N ideas "
        "x 2 plans x 1 programs*",
        "*nversion/add3/v2] PASSED*",
        f"  generation pipeline: 1 tasks (0 ended in error) | transitions * | retries "
        f"{record['retries']} | rollbacks 0 | programs *",
        "    IRQN: unjudged *, retain *, question *, negate * | repair iterations * | accepted "
        "versions 3",
        f"    calls {len(calls)} | tokens {70 * len(calls)} | cost $* | per accepted version: *"])


def test_a_resumed_run_asks_the_pipeline_nothing_again(
        pytester: pytest.Pytester, pipeline_suite: Path) -> None:
    args = ("--r2r-nversion=3", "--r2r-suite=jsonl:suite.jsonl", "--r2r-model=fake/coder",
            "--r2r-seed=5", "--r2r-faults=code", "--r2r-concurrency=1", "--r2r-db=store.db",
            *SERIAL)
    first = pytester.runpytest(*args, "-k", "v0", "--r2r-json=first.json")
    first.assert_outcomes(passed=1)
    asked = len(read_fake_log(pipeline_suite, preflight=False))
    (run_id,) = run_ids(pytester.path / "store.db")
    pytester.runpytest(*args, f"--r2r-resume={run_id}", "--r2r-json=again.json")
    assert len(read_fake_log(pipeline_suite, preflight=False)) == asked, "a call was repeated"
    items = json.loads((pytester.path / "again.json").read_text())["items"]
    versions = {i["item_id"]: i for i in items if i["nversion"]["role"] == "version"}
    assert len(versions) == 3 and all(i["status"] == "success" for i in versions.values())
    kept = json.loads((pytester.path / "first.json").read_text())["items"][0]
    assert versions["nversion/add3/v0"] == kept
    codes = {i["code"]["solution.py"] for i in versions.values()}
    assert len(codes) == 3  # the pipeline, answered from the cache, chose as the first time
    original, rerun = (versions[f"nversion/add3/v{k}"]["nversion"]["generation"]
                       for k in (0, 1))
    assert original["calls"] == asked and rerun["calls"] == 0  # every answer from the cache
    assert [(t["source"], t["target"], t["action"], t["reason"]) for t in rerun["transitions"]] \
        == [(t["source"], t["target"], t["action"], t["reason"])
            for t in original["transitions"]]
