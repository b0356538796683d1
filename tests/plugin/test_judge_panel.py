"""The judge panel through pytest: a three-judge run end to end, its summary, and resume.

Runs that call litellm run in-process: tests/conftest.py imports it once per test process
first, so pytester's restore of ``sys.modules`` keeps it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _store_runs import count_rows, kill_after, run_ids

from pytest_req2rank.providers.fake import read_fake_log, reset_fake_state, write_fake_script
from pytest_req2rank.report import load_results

BENCHMARK = (Path(__file__).parents[2] / "benchmarks" / "test_benchmark.py").read_text()
DIMENSIONS = ("functionality", "quality", "logic", "security", "engineering")
ROUNDS = 3
DYNAMIC = ("--r2r-suite=dynamic", f"--r2r-rounds={ROUNDS}", "--r2r-seed=11",
           "--r2r-complexity=C1,C2")
PANEL = "--r2r-judges=fake/judge-a,fake/judge-b,fake/judge-c"


def _answer(score: float) -> dict[str, Any]:
    scores = dict.fromkeys(DIMENSIONS, score)
    return {"text": json.dumps({"scores": scores, "rationale": f"all {score}"}),
            "usage": {"prompt_tokens": 300, "completion_tokens": 40}}


@pytest.fixture
def bench(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_benchmark=BENCHMARK)
    return pytester


@pytest.fixture
def judges(bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Judge a scores 80 everywhere, judge b 90, judge c never answers JSON; each call logged.
    Judge a's model enforces a JSON Schema on its answers (structured output)."""
    script = {"models": {
        "judge-a": [{"responses": [{**_answer(80), "delay_s": 0.2}]}],
        "judge-b": [{"responses": [{**_answer(90), "delay_s": 0.2}]}],
        "judge-c": [{"responses": [{"text": "The code looks fine to me. 9/10."}]}],
    }, "info": {"judge-a": {"supports_response_schema": True}}}
    log = bench.path / "calls.jsonl"
    for name, value in write_fake_script(bench.path / "script.json", script, log_path=log).items():
        monkeypatch.setenv(name, value)
    yield log
    reset_fake_state()


def _calls(log: Path, *, preflight: bool = False) -> dict[str, int]:
    """Calls per model: the items' (default), or the preflight's."""
    counts: dict[str, int] = {}
    for call in read_fake_log(log, preflight=preflight):
        counts[call["model"]] = counts.get(call["model"], 0) + 1
    return counts


@pytest.mark.slow  # a judged run and its resumption (~30 s); the fast set keeps the default panel
def test_three_judge_panel_end_to_end_then_resumed_without_asking_again(
    bench: pytest.Pytester, judges: Path
) -> None:
    args = (*DYNAMIC, PANEL, "--r2r-db=store.db")
    result = bench.runpytest(*args, "--r2r-json=results.json", "-n", "2")
    result.assert_outcomes(passed=ROUNDS)
    # Two valid judges: no trimming. Functionality and logic: 0.7 x 100 + 0.3 x 85 = 95.5;
    # quality, security, engineering 85; overall .3 x 95.5 + .25 x 85 + .25 x 95.5 + .2 x 85 = 90.8.
    result.stdout.fnmatch_lines([
        "req2rank: judges fake/judge-a, fake/judge-b, fake/judge-c | functionality and logic "
        "70% hidden tests, 30% judges",
        "score: 90.8/100 = mean item score (95% CI 90.8-90.8, bootstrap-clustered)",
        f"panel: fake/judge-a, fake/judge-b, fake/judge-c | {ROUNDS} items scored, 0 judge_failed*",
        "dimensions: functionality 95.5 | quality 85.0 | logic 95.5 | security 85.0 | "
        "engineering 85.0",
        f"agreement: high (mean sigma 5.0; items: {ROUNDS} high)",
        # judge a always 10 below judge b: every difference is between judges, none between items
        "krippendorff alpha: functionality -0.67 | quality -0.67 | logic -0.67 | security -0.67 | "
        "engineering -0.67",
        "panel spread (mean of the items' CI95 over their judges): 86.5-95.1",
        "*judge *items  scored  invalid  unreadable  failed   mean  latency",
        f"  fake/judge-a  *{ROUNDS}  *{ROUNDS}  *0  *0.0%  *0   80.0*",
        f"  fake/judge-b  *{ROUNDS}  *{ROUNDS}  *0  *0.0%  *0   90.0*",
        f"  fake/judge-c  *{ROUNDS}  *0  *{ROUNDS}  *100.0%  *0    n/a*",
        f"  judges: {3 * ROUNDS} | prompt tokens {600 * ROUNDS} | completion tokens {80 * ROUNDS}*",
        f"warning: judge fake/judge-c was dropped on {ROUNDS} of {ROUNDS} items "
        f"({ROUNDS} invalid answers, 0 provider failures)",
    ])
    document = load_results(bench.path / "results.json")
    assert document.run.judges == ["fake/judge-a", "fake/judge-b", "fake/judge-c"]
    summary = document.summary
    assert summary.judging is not None and summary.judging.items_judged == ROUNDS
    assert summary.totals_by_role["judges"].calls == 3 * ROUNDS
    for item in document.items:
        assert [v.judge for v in item.judges] == ["fake/judge-a", "fake/judge-b", "fake/judge-c"]
        assert [v.valid for v in item.judges] == [True, True, False]
        assert item.judges[2].error and item.judges[2].error.startswith("invalid answer")
        assert item.judges[2].raw == "The code looks fine to me. 9/10."
        assert item.panel is not None and item.panel.status == "scored"
        assert item.panel.judge_dimensions == dict.fromkeys(DIMENSIONS, 85.0)
        # judges' blended overalls 87.7 and 93.85: 90.775 +- 1.96 x 3.075 / sqrt(2)
        assert item.panel.ci95 == pytest.approx((86.5, 95.1), abs=0.05)
        assert item.score == 90.8
    assert [r.invalid_answer_rate for r in summary.judging.per_judge] == [0.0, 0.0, 1.0]
    # every judge was asked once per item, at temperature 0 with the run seed, with the answer
    # schema where its model enforces one, in JSON mode elsewhere
    calls = read_fake_log(judges, preflight=False)
    assert _calls(judges) == {f"fake/judge-{x}": ROUNDS for x in "abc"}
    # and once more each, before the first item, by the preflight: counted on its own
    assert _calls(judges, preflight=True) == {f"fake/judge-{x}": 1 for x in "abc"}
    assert summary.totals_by_role["preflight"].calls == 3
    assert {(c["temperature"], c["seed"]) for c in calls} == {(0.0, 11)}
    assert {c["model"]: c["response_format"]["type"] for c in calls} == {
        "fake/judge-a": "json_schema", "fake/judge-b": "json_object",
        "fake/judge-c": "json_object"}

    # resumed, under xdist too: every verdict comes from the store, no judge is asked again
    (run_id,) = run_ids(bench.path / "store.db")
    again = bench.runpytest(*args, f"--r2r-resume={run_id}", "--r2r-json=again.json", "-n", "2")
    assert again.ret == pytest.ExitCode.OK
    again.assert_outcomes()  # every item kept: deselected, none run again
    assert sum(_calls(judges).values()) == 3 * ROUNDS, "a resumed run asked a judge again"
    assert sum(_calls(judges, preflight=True).values()) == 2 * 3
    first_doc = json.loads((bench.path / "results.json").read_text())
    again_doc = json.loads((bench.path / "again.json").read_text())
    assert again_doc["items"] == first_doc["items"]
    assert again_doc["summary"]["overall_score"] == first_doc["summary"]["overall_score"]


def test_every_judge_failing_excludes_the_item(bench: pytest.Pytester, judges: Path) -> None:
    result = bench.runpytest(*DYNAMIC, "--r2r-judges=fake/judge-c",
                             "--r2r-json=results.json", "-p", "no:xdist")
    result.stdout.fnmatch_lines([
        "score: n/a*",
        f"panel: fake/judge-c | 0 items scored, {ROUNDS} judge_failed*",
        f"warning: {ROUNDS} items are judge_failed (every judge failed) and are excluded*",
    ])
    items = json.loads((bench.path / "results.json").read_text())["items"]
    assert [(i["panel"]["status"], i["score"]) for i in items] == [("judge_failed", None)] * ROUNDS


def test_the_default_panel_is_the_static_judge(bench: pytest.Pytester) -> None:
    result = bench.runpytest(*DYNAMIC, "--r2r-json=results.json", "-p", "no:xdist")
    result.assert_outcomes(passed=ROUNDS)
    result.stdout.fnmatch_lines([
        "req2rank: judges r2r/static (default: static analysis and execution evidence; "
        "pass --r2r-judges=MODEL,... for LLM judges) | *",
        "panel: r2r/static | *",
    ])
    document = load_results(bench.path / "results.json")
    assert document.run.judges == ["r2r/static"]
    for item in document.items:
        assert item.panel is not None and item.panel.execution_ratio == 1.0
        assert item.judges[0].judge == "r2r/static" and item.judges[0].valid


@pytest.mark.slow  # the fast loop keeps serial-vs-pipelined (test_pipelining) and -n 2 runs
def test_serial_and_parallel_runs_judge_alike(bench: pytest.Pytester) -> None:
    bench.runpytest(*DYNAMIC, "--r2r-rounds=4", "--r2r-json=serial.json", "-p", "no:xdist")
    bench.runpytest(*DYNAMIC, "--r2r-rounds=4", "--r2r-json=parallel.json", "-n", "2")
    serial, parallel = (load_results(bench.path / f"{name}.json") for name in ("serial", "parallel"))
    assert [i.item_id for i in serial.items] == [i.item_id for i in parallel.items]
    assert [(i.score, i.panel) for i in serial.items] == [(i.score, i.panel) for i in parallel.items]
    assert serial.summary.overall_score == parallel.summary.overall_score
    assert serial.summary.ci95 == parallel.summary.ci95


def test_execution_only_and_weights(bench: pytest.Pytester) -> None:
    plain = bench.runpytest(*DYNAMIC, "--r2r-judges=none", "-p", "no:xdist")
    plain.stdout.fnmatch_lines([
        "req2rank: judges none (--r2r-judges=none: the score is the hidden tests' pass ratio)",
        "score: 100.0/100 = mean item score*",
    ])
    weighted = bench.runpytest(*DYNAMIC, "--r2r-execution-weight=1",
                               "--r2r-weights=functionality=50,quality=0,logic=50,security=0,"
                               "engineering=0", "-p", "no:xdist")
    weighted.stdout.fnmatch_lines(["score: 100.0/100 = mean item score*",
                                   "*functionality and logic 100% hidden tests*"])


@pytest.mark.parametrize(("option", "message"), [
    ("--r2r-judges=r2r/static,,fake/x", "--r2r-judges: expected comma-separated model strings*"),
    ("--r2r-judges=r2r/reference", "--r2r-judges: r2r/reference cannot judge*"),
    ("--r2r-execution-weight=1.5", "--r2r-execution-weight: *less than or equal to 1*"),
    ("--r2r-weights=functionality=90,quality=25,logic=25,security=10,engineering=10",
     "--r2r-weights: the weights are percentages and must sum to 100, got 160"),
])
def test_panel_options_fail_in_one_line(bench: pytest.Pytester, option: str, message: str) -> None:
    result = bench.runpytest(*DYNAMIC, option, "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
    assert "Traceback" not in result.stderr.str()


def test_an_unroutable_judge_fails_in_one_line(bench: pytest.Pytester) -> None:
    result = bench.runpytest(*DYNAMIC, "--r2r-judges=r2r/static,not-a-provider/xyz",
                             "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --r2r-judges: LiteLLM cannot route model 'not-a-provider/xyz'*"])
    assert "Traceback" not in result.stderr.str()


def test_self_judging_is_flagged_and_can_be_excluded(
    bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    coder = "```python\ndef add(a: int, b: int) -> int:\n    return a + b\n```"
    script = {"models": {"gpt-coder": [{"responses": [{"text": coder}]}],
                         "gpt-judge": [{"responses": [_answer(95)]}],
                         "judge-a": [{"responses": [_answer(60)]}]}}
    for name, value in write_fake_script(bench.path / "script.json", script).items():
        monkeypatch.setenv(name, value)
    bench.path.joinpath("suite.jsonl").write_text(json.dumps({
        "task_id": "add", "prompt": "def add(a: int, b: int) -> int:\n    \"\"\"Sum.\"\"\"\n",
        "entry_point": "add", "canonical_solution": "    return a + b\n",
        "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n"}) + "\n")
    args = ("--r2r-suite=jsonl:suite.jsonl", "--r2r-model=fake/gpt-coder",
            "--r2r-judges=fake/gpt-judge,fake/judge-a", "-p", "no:xdist")
    flagged = bench.runpytest(*args)
    flagged.stdout.fnmatch_lines([
        "*fake/gpt-judge * (self-judging)",
        "warning: judge fake/gpt-judge is of the target's model family and judged 1 items; "
        "--r2r-exclude-self-judging leaves it out",
    ])
    excluded = bench.runpytest(*args, "--r2r-exclude-self-judging",
                               "--r2r-json=results.json")
    (item,) = json.loads((bench.path / "results.json").read_text())["items"]
    assert [v["judge"] for v in item["judges"]] == ["fake/judge-a"]
    # judge a alone: functionality/logic 0.7 x 100 + 0.3 x 60 = 88, the rest 60
    assert item["score"] == pytest.approx(0.3 * 88 + 0.25 * 60 + 0.25 * 88 + 0.2 * 60, abs=0.05)
    excluded.stdout.fnmatch_lines(["*judges of the target's family excluded*"])


@pytest.mark.slow  # the fast loop keeps the coder kill test and the judged resume
def test_killed_judged_run_resumes_without_asking_twice(
    bench: pytest.Pytester, judges: Path
) -> None:
    rounds = 6
    # One item at a time, so the kill lands mid-run (items ahead of pytest would all be done).
    args = ["--r2r-suite=dynamic", f"--r2r-rounds={rounds}", "--r2r-seed=11",
            "--r2r-complexity=C1,C2", PANEL, "--r2r-db=store.db", "-p", "no:xdist",
            "--r2r-concurrency=1"]
    db = bench.path / "store.db"
    kill_after(args, bench.path, db, finished=1)
    cached = count_rows(db, "llm_cache")
    before = sum(_calls(judges).values())
    assert 3 <= cached <= before < 3 * rounds
    (run_id,) = run_ids(db)
    kept = count_rows(db, "items")
    resumed = bench.runpytest(*args, f"--r2r-resume={run_id}",
                              "--r2r-json=results.json")
    resumed.assert_outcomes(passed=rounds - kept, deselected=kept)
    new_calls = sum(_calls(judges).values()) - before
    assert new_calls == 3 * rounds - cached, "the resumed run repeated a judge call it had kept"
    items = json.loads((bench.path / "results.json").read_text())["items"]
    assert [item["score"] for item in items] == [90.8] * rounds
