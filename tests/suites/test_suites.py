"""Suites: HumanEval from the package, JSONL in both forms, and file:line errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_req2rank.models import SuiteSpec
from pytest_req2rank.suites import SuiteError, load_jsonl, load_suite

DATA = Path(__file__).parent.parent / "data"


def test_humaneval_has_164_function_tasks() -> None:
    tasks = load_suite("humaneval")
    assert len(tasks) == 164
    first = tasks[0]
    assert first.item_id == "humaneval/HumanEval_0"
    assert first.task_id == "HumanEval/0"
    assert first.form == "function"
    assert first.entry_point == "has_close_elements"
    assert first.reference.startswith(first.prompt)
    assert len({t.item_id for t in tasks}) == 164


def test_status_suite_loads_both_forms() -> None:
    tasks = load_jsonl(DATA / "status_suite.jsonl")
    forms = {t.task_id: t.form for t in tasks}
    assert forms["st_ok"] == "function" and forms["io_ok"] == "io"
    assert tasks[0].item_id == "status_suite/st_ok"
    io = next(t for t in tasks if t.task_id == "io_ok")
    assert [c.output for c in io.cases] == ["3\n", "0\n", "0\n"]


def test_relative_path_resolves_against_rootdir() -> None:
    tasks = load_suite("jsonl:data/status_suite.jsonl", rootdir=DATA.parent)
    assert len(tasks) == 12


def test_whole_function_canonical_solution_is_kept(tmp_path: Path) -> None:
    record = {"task_id": "t", "prompt": "def f():\n", "entry_point": "f",
              "canonical_solution": "def f():\n    return 1\n",
              "test": "def check(candidate):\n    assert candidate() == 1\n"}
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(record) + "\n")
    assert load_jsonl(path)[0].reference == "def f():\n    return 1\n"


def _write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "suite.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


GOOD_IO = json.dumps({"task_id": "a", "prompt": "p", "canonical_solution": "print(1)",
                      "tests": [{"input": "", "output": "1"}]})


@pytest.mark.parametrize(
    ("line", "at", "message"),
    [
        ("{not json", "n", "invalid JSON: Expecting property name"),
        ('{"task_id": "b", "prompt": "p", x}', "x", "invalid JSON: Expecting property name"),
        ("[1, 2]", "[", "expected a JSON object, got list"),
        (json.dumps({"task_id": "b", "prompt": "p", "entry_point": "f", "test": "def check(c): pass"}),
         "{", r"missing field 'canonical_solution' \(HumanEval form needs"),
        (json.dumps({"task_id": "b", "prompt": "p", "canonical_solution": "x", "tests": []}),
         "[]", "field 'tests' must be a non-empty list"),
        (json.dumps({"task_id": "b", "prompt": "p", "canonical_solution": "x", "tests": [{"input": ""}]}),
         '{"input"', r"missing field 'tests\[0\].output'"),
        (json.dumps({"task_id": "b", "prompt": "p", "canonical_solution": "x",
                     "tests": [{"input": "", "output": ""}, {"input": "", "output": 3}]}),
         "3}", r"field 'tests\[1\].output' must be a string"),
        (json.dumps({"task_id": "b", "prompt": 3, "canonical_solution": "x", "tests": [{"input": "", "output": ""}]}),
         "3,", "field 'prompt' must be a string, got int"),
        ('{"task_id": "b", "prompt": "p", "prompt": 4, "canonical_solution": "x", "tests": [1]}',
         "4,", "field 'prompt' must be a string, got int"),
        (json.dumps({"task_id": "b", "prompt": "p"}), "{", "cannot tell the form"),
        ("   " + GOOD_IO, '"a"', "task_id 'a' duplicates line 1"),
    ],
)
def test_malformed_lines_name_file_line_and_column(
    tmp_path: Path, line: str, at: str, message: str
) -> None:
    """The column is where the parser stopped, or where the wrong value starts (1-based)."""
    path = _write(tmp_path, GOOD_IO, line)
    column = line.index(at) + 1
    with pytest.raises(SuiteError, match=rf"^{re.escape(str(path))}:2:{column}: {message}") as info:
        load_jsonl(path)
    assert "\n" not in str(info.value)


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match="suite file not found"):
        load_jsonl(tmp_path / "nope.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(SuiteError, match="has no tasks"):
        load_jsonl(empty)


def test_a_suite_is_the_same_wherever_its_file_lies() -> None:
    """A baseline made in another checkout names the same JSONL suite by another path."""
    def key(text: str) -> str:
        return SuiteSpec.parse(text).key

    assert key("jsonl:/home/me/proj/ci/suite.jsonl") == key("jsonl:/runner/ci/suite.jsonl")
    assert key("jsonl:/a/suite.jsonl") != key("jsonl:/a/other.jsonl")
    assert key("humaneval") == "humaneval" != key("dynamic")
