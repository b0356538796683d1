"""``pytest --r2r-nversion=N`` end to end: version and ensemble items, the per-pattern tables
in the summary and the results JSON, determinism, xdist, a scripted remote model, bad options.

The offline runs use ``--r2r-sample`` (two library tasks) to stay fast; the library's
implementations are all correct, so the invariants of the issue hold on them."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _usage import SERIAL, one_line

from pytest_req2rank.nversion import load_library
from pytest_req2rank.providers.fake import read_fake_log, reset_fake_state, write_fake_script
from pytest_req2rank.report import validate_results

RUN = ("--r2r-nversion=5", "--r2r-seed=3", "--r2r-sample=2")
TABLE_ROW = re.compile(r"^  Pat-(CL|AL)[0-4] ")


def _results(pytester: pytest.Pytester, name: str) -> dict[str, Any]:
    data = json.loads((pytester.path / name).read_text())
    validate_results(data)
    return data


def _table(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if TABLE_ROW.match(line)]


@pytest.fixture(scope="module")
def library_ids() -> set[str]:
    return {entry.task_id for entry in load_library()}


@pytest.mark.slow  # the whole built-in library, 5 versions each (~40 s)
def test_offline_run_is_a_fault_injection_experiment(pytester: pytest.Pytester,
                                                     library_ids: set[str]) -> None:
    result = pytester.runpytest(*RUN, "--r2r-json=a.json", "-v", *SERIAL)
    data = _results(pytester, "a.json")
    items = data["items"]
    tasks = sorted({item["task_id"] for item in items})
    assert len(tasks) == 2 and set(tasks) <= library_ids
    patterns = [f"Pat-{f}{k}" for f in ("CL", "AL") for k in range(5)]
    for task in tasks:
        key = "nversion/" + task.replace("/", "_")
        ids = [item["item_id"] for item in items if item["task_id"] == task]
        assert ids == [f"{key}/v{k}" for k in range(5)] + [f"{key}/{p}" for p in patterns]
    versions = [i for i in items if i["nversion"]["role"] == "version"]
    assert len(versions) == 10 and all(i["status"] == "success" for i in versions)
    assert [i["nversion"]["version"] for i in versions[:5]] == [0, 1, 2, 3, 4]
    for item in items:
        if item["nversion"]["pattern"] in ("Pat-CL0", "Pat-CL1", "Pat-CL2"):
            assert item["status"] == "success", item["reason"]
        if item["nversion"]["role"] == "ensemble":
            run = item["nversion"]["run"]
            assert run["pattern"] == item["nversion"]["pattern"]
            assert len(run["versions"]) == 5 and run["outcome"]["vote"]["votes"]
    nv = data["summary"]["nversion"]
    rows = {row["pattern"]: row for row in nv["patterns"]}
    assert list(rows) == patterns
    assert all(rows[p]["fr"] == 0 for p in ("Pat-CL0", "Pat-CL1", "Pat-CL2"))
    assert rows["Pat-CL4"]["fr"] > 0  # every version mutated: the vote cannot be right
    assert all(row["ccr"] <= row["mcr"] and row["tasks"] == 2 for row in rows.values())
    assert nv["versions_passed"] == nv["version_items"] == 10
    assert len(nv["diversity"]) == 2 and 0 < nv["mean_levenshtein"] < 1
    assert 0 < nv["mean_structural"] < 1 and nv["structural_measure"] != "MBCS"
    # The score covers the versions; the ensemble checks have their own tables.
    assert data["summary"]["items_total"] == 10 and data["summary"]["overall_score"] == 100
    assert data["run"]["settings"]["nversion"] == 5
    assert data["run"]["settings"]["faults"] == ["code", "algorithm"]
    assert len(_table(result)) == 10
    result.stdout.fnmatch_lines(["req2rank: N-version: 5 versions per task, 2 tasks | patterns "
                                 "Pat-CL0, *, Pat-AL4 | versions from the library*",
                                 "*nversion/*/v4] PASSED*", "*nversion/*/Pat-CL2] PASSED*",
                                 "N-version: 5 versions x 2 tasks*", "*diversity*not MBCS*"])


@pytest.mark.slow  # the whole library twice (1,170 items); the offline run above is the fast one
def test_same_seed_same_tables_and_xdist_matches_serial(pytester: pytest.Pytester) -> None:
    args = ("--r2r-nversion=3", "--r2r-seed=11", "--r2r-sample=2", "--r2r-faults=code")
    first = pytester.runpytest(*args, "--r2r-json=first.json", *SERIAL)
    second = pytester.runpytest(*args, "--r2r-json=second.json", *SERIAL)
    parallel = pytester.runpytest_subprocess(*args, "--r2r-json=parallel.json", "-n", "2")
    tables = [_results(pytester, f"{name}.json")["summary"]["nversion"]
              for name in ("first", "second", "parallel")]
    assert len(tables[0]["patterns"]) == 5  # code level only
    assert tables[0] == tables[1] == tables[2]
    assert _table(first) == _table(second) == _table(parallel) != []
    workers = {(i["task_id"], i["worker"]) for i in _results(pytester, "parallel.json")["items"]}
    assert len({task for task, _ in workers}) == len(workers)  # loadgroup: a task, one worker
    assert parallel.ret == first.ret


def test_offline_run_exits_0_and_header_summary_and_runs_agree_on_the_counts(
        pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    """Pat-CL4 mutates every version, so its vote is wrong: a measurement (FR 1), not a
    failure of the plugin; the run exits 0, and its items are counted alike everywhere."""
    result = pytester.runpytest("--r2r-nversion=5", "--r2r-seed=3", "--r2r-sample=1",
                                "--r2r-faults=code", "--r2r-json=r.json", "--r2r-db=store.db",
                                *SERIAL)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=10)
    data = _results(pytester, "r.json")
    cl4 = next(i for i in data["items"] if i["nversion"]["pattern"] == "Pat-CL4")
    assert cl4["status"] == "wrong_answer" and cl4["nversion"]["run"] is not None
    nv = data["summary"]["nversion"]
    assert next(p for p in nv["patterns"] if p["pattern"] == "Pat-CL4")["fr"] == 1.0
    assert (nv["ensemble_items"], nv["ensemble_planned"]) == (5, 5)
    assert (data["summary"]["items_total"], data["summary"]["items_planned"]) == (5, 5)
    result.stdout.fnmatch_lines([
        "req2rank: run * (10 items: 1 tasks x (5 versions + 5 ensemble checks)) | model *",
        ("items: 10/10 finished in * s: 5/5 versions (5 success), 5/5 ensemble checks "
         "(5 measured)")])
    from pytest_req2rank.cli import main

    capsys.readouterr()
    assert main(["runs", "--db", str(pytester.path / "store.db")]) == 0
    (row,) = capsys.readouterr().out.splitlines()[1:]
    assert row.split()[-3] == "10/10"


def test_an_ensemble_check_without_its_versions_fails(pytester: pytest.Pytester,
                                                      fake_suite: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A measurement that could not be made (every version call refused) fails its item."""
    env = write_fake_script(pytester.path / "script.json",
                            {"models": {"coder": [{"responses": [{"error": "bad_request"}]}]}})
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = pytester.runpytest("--r2r-nversion=2", "--r2r-suite=jsonl:suite.jsonl",
                                "--r2r-model=fake/coder", "--r2r-faults=code",
                                "--r2r-nv-method=plain", "-k", "Pat-CL0", *SERIAL)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([("api_error (infrastructure, not counted against the model): "
                                  "version 0 has no code: api_error (BadRequestError*")])


def test_k_selects_one_ensemble_check_which_asks_for_its_versions(
        pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*RUN, "-k", "Pat-CL1", "--r2r-json=k.json", *SERIAL)
    result.assert_outcomes(passed=2)
    items = _results(pytester, "k.json")["items"]
    assert [i["nversion"]["pattern"] for i in items] == ["Pat-CL1", "Pat-CL1"]
    assert all(len(i["nversion"]["run"]["injection"]["faults"]) == 1 for i in items)


def test_repeated_implementations_are_said(pytester: pytest.Pytester) -> None:
    library = load_library()
    fewest = min(library, key=lambda entry: len(entry.implementations))
    n = len(fewest.implementations) + 1
    suite = pytester.path / "one.jsonl"
    from pytest_req2rank.suites import load_humaneval

    task = next(t for t in load_humaneval() if t.task_id == fewest.task_id)
    solution = task.reference
    suite.write_text(json.dumps({"task_id": task.task_id, "prompt": task.prompt,
                                 "entry_point": task.entry_point, "test": task.test,
                                 "canonical_solution": solution}) + "\n")
    result = pytester.runpytest(f"--r2r-nversion={n}", "--r2r-suite=jsonl:one.jsonl",
                                "--r2r-faults=code", "--r2r-json=r.json", *SERIAL)
    warning = f"*N={n} exceeds the distinct implementations of 1 task(s)*{fewest.task_id} ({n - 1})"
    result.stdout.fnmatch_lines([f"req2rank: WARNING: {warning}"])
    data = _results(pytester, "r.json")
    assert any(w.startswith(f"N={n} exceeds") for w in data["summary"]["warnings"])
    versions = [i["nversion"] for i in data["items"] if i["nversion"]["role"] == "version"]
    assert [v["repeated"] for v in versions] == [False] * (n - 1) + [True]
    assert versions[-1]["implementation"] == versions[0]["implementation"]


def _task() -> dict[str, Any]:
    return {"task_id": "add3", "entry_point": "add3",
            "prompt": "def add3(a, b):\n    \"\"\"Return a + b + 3.\"\"\"\n",
            "canonical_solution": "    return a + b + 3\n",
            "test": "def check(candidate):\n    assert candidate(1, 2) == 6\n"
                    "    assert candidate(0, 0) == 3\n    assert candidate(-4, 1) == 0\n"}


RIGHT = ["```python\ndef add3(a, b):\n    return a + b + 3\n```",
         "```python\ndef add3(a, b):\n    return sum((a, b, 3))\n```",
         "```python\ndef add3(a, b):\n    total = 3\n    for x in (a, b):\n"
         "        total += x\n    return total\n```"]
WRONG = "```python\ndef add3(a, b):\n    return a - b\n```"


@pytest.fixture
def fake_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (pytester.path / "suite.jsonl").write_text(json.dumps(_task()) + "\n")
    monkeypatch.chdir(pytester.path)
    responses = [{"text": text} for text in (RIGHT[0], RIGHT[1], WRONG, RIGHT[2], RIGHT[0])]
    env = write_fake_script(pytester.path / "script.json",
                            {"models": {"coder": [{"responses": responses}]}},
                            log_path=pytester.path / "calls.jsonl")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    yield pytester.path / "calls.jsonl"
    reset_fake_state()


def test_a_remote_model_answers_plain_prompts_and_a_wrong_one_is_outvoted(
        pytester: pytest.Pytester, fake_suite: Path) -> None:
    result = pytester.runpytest("--r2r-nversion=5", "--r2r-suite=jsonl:suite.jsonl",
                                "--r2r-model=fake/coder", "--r2r-seed=2", "--r2r-faults=code",
                                "--r2r-json=fake.json", "--r2r-nv-method=plain", *SERIAL)
    calls = read_fake_log(fake_suite, preflight=False)
    assert len(calls) == 5 and len({call["seed"] for call in calls}) == 5
    data = _results(pytester, "fake.json")
    versions = [i for i in data["items"] if i["nversion"]["role"] == "version"]
    assert sorted(i["status"] for i in versions) == ["success"] * 4 + ["wrong_answer"]
    assert all(i["nversion"]["implementation"] is None for i in versions)
    ensembles = {i["nversion"]["pattern"]: i for i in data["items"]
                 if i["nversion"]["role"] == "ensemble"}
    assert ensembles["Pat-CL0"]["status"] == "success"  # 4 of 5 right: a strict majority
    row = next(r for r in data["summary"]["nversion"]["patterns"] if r["pattern"] == "Pat-CL0")
    assert row == {**row, "fr": 0.0, "mcr": 1.0, "ccr": 0.0, "tpr": pytest.approx(0.8)}  # 4 x 3/3 tests, 1 x 0/3
    assert len(_table(result)) == 5
    result.stdout.fnmatch_lines(["*one plain prompt per version*"])


@pytest.mark.parametrize(("args", "expected"), [
    (("--r2r-nversion=1",), "--r2r-nversion: expected an integer from 2 to 20*got '1'"),
    (("--r2r-nversion=many",), "--r2r-nversion: expected an integer from 2 to 20*got 'many'"),
    (("--r2r-nversion=21",), "--r2r-nversion: expected an integer from 2 to 20*got '21'"),
    (("--r2r-nversion=5", "--r2r-faults=code,syntax"),
     "--r2r-faults: unknown fault family 'syntax'; allowed: code, algorithm*"),
    (("--r2r-faults=code",), "--r2r-faults: applies to an N-version run only; add --r2r-nversion=N"),
    (("--r2r-nv-repairs=2",), "--r2r-nv-repairs: applies to an N-version run only; add "
     "--r2r-nversion=N"),
    (("--r2r-nversion=3", "--r2r-nv-p-qn1=1.5"), "--r2r-nv-p-qn1: must be less than or equal to 1*"),
    (("--r2r-nversion=3", "--r2r-nv-theta-diff=0.8"),
     "--r2r-nv-theta-diff: 0.8 is above --r2r-nv-theta-ident (0.7)*"),
    (("--r2r-nversion=3", "--r2r-nv-method=fancy"), "--r2r-nv-method: *'pipeline' or 'plain'*"),
    (("--r2r-nversion=5", "--r2r-suite=dynamic"),
     "--r2r-suite: an N-version run needs HumanEval-form tasks*"),
    (("--r2r-nversion=5", "--r2r-samples-per-task=3"),
     "--r2r-nversion: an N-version run asks the model once per version*"),
])
def test_bad_options_are_one_line_usage_errors(pytester: pytest.Pytester, args: tuple[str, ...],
                                               expected: str) -> None:
    one_line(pytester.runpytest(*args, *SERIAL), expected)


def test_a_suite_without_library_tasks_is_a_usage_error(pytester: pytest.Pytester) -> None:
    (pytester.path / "suite.jsonl").write_text(json.dumps(_task()) + "\n")
    one_line(pytester.runpytest("--r2r-nversion=3", "--r2r-suite=jsonl:suite.jsonl", *SERIAL),
             "--r2r-suite: none of the tasks of jsonl:* is in the N-version library (33 HumanEval "
             "tasks)*")


def _collected(result: pytest.RunResult) -> list[str]:
    return [m.group(1) for line in result.outlines
            if (m := re.search(r"test_task\[(nversion/[^\]]+)\]", line))]


def test_the_default_suite_adds_the_library_requirement_tasks(pytester: pytest.Pytester) -> None:
    """The built-in model on the default suite: the library's HumanEval tasks, then its own
    requirement tasks; an explicit --r2r-suite=humaneval keeps to HumanEval."""
    library = load_library()
    own = [e.task_id.replace("/", "_") for e in library if e.is_requirement]
    held = [e.task_id.replace("/", "_") for e in library if not e.is_requirement]
    args = ("--r2r-nversion=2", "--r2r-faults=code", "--collect-only", "-q", *SERIAL)
    default = _collected(pytester.runpytest(*args))
    tasks = list(dict.fromkeys(item.split("/")[1] for item in default))
    assert tasks == held + own and len(own) >= 6
    assert f"nversion/{own[0]}/v1" in default and f"nversion/{own[-1]}/Pat-CL4" in default
    explicit = _collected(pytester.runpytest(*args, "--r2r-suite=humaneval"))
    assert list(dict.fromkeys(item.split("/")[1] for item in explicit)) == held
