"""A reasoning model's answers through pytest: graded from the final answer, a cut answer
``truncated`` in every output, a refusal said so, the reasoning kept in the Q&A log.

Runs that call litellm run in-process: tests/conftest.py imports it once per test process
first, so pytester's restore of ``sys.modules`` keeps it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_req2rank.providers.fake import reset_fake_state, write_fake_script
from pytest_req2rank.report import load_results

BENCHMARK = (Path(__file__).parents[2] / "benchmarks" / "test_benchmark.py").read_text()
PROMPT = 'def add(a: int, b: int) -> int:\n    """Return the sum of a and b."""\n'
SUITE = [{"task_id": name, "prompt": PROMPT.replace("add", name), "entry_point": name,
          "canonical_solution": "    return a + b\n",
          "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n"}
         for name in ("reasoned", "cut", "refused")]
DRAFT = "```python\ndef reasoned(a, b):\n    return a - b\n```"
ANSWERS = {
    "reasoned": {"text": f"<think>\nFirst try:\n{DRAFT}\nNo: a plus b.\n</think>\n\n"
                         "def reasoned(a, b):\n    return a + b\n"},
    "cut": {"text": "<think>\nThe sum. Let me consider overflow, negative numbers, and",
            "finish_reason": "length"},
    "refused": {"text": "I'm sorry, but I can't help with that."},
}


@pytest.fixture
def bench(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.Pytester]:
    pytester.makepyfile(test_benchmark=BENCHMARK)
    (pytester.path / "suite.jsonl").write_text("".join(json.dumps(t) + "\n" for t in SUITE))
    script = {"models": {"thinker": [{"match": f"def {name}\\(", "responses": [answer]}
                                     for name, answer in ANSWERS.items()]}}
    for name, value in write_fake_script(pytester.path / "script.json", script).items():
        monkeypatch.setenv(name, value)
    yield pytester
    reset_fake_state()


def test_answers_of_a_reasoning_model_through_pytest(bench: pytest.Pytester) -> None:
    result = bench.runpytest("--r2r-suite=jsonl:suite.jsonl", "--r2r-model=fake/thinker",
                             "--r2r-json=results.json", "--r2r-html=report.html",
                             "-p", "no:xdist")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines([
        ("truncated: 0/0 tests passed; the answer ended inside its reasoning, before any final "
         "answer"),
        ("syntax_error: 0/0 tests passed; format_error: the answer refuses the task and holds no "
         "code: \"I'm sorry, but I can't help with that.\""),
        "*1 success, 1 syntax_error, 1 truncated*",
        "*errors*truncated 33.3%*",
    ])
    document = load_results(bench.path / "results.json")
    assert document.schema_version == 6
    items = {item.task_id: item for item in document.items}
    assert {task: item.status for task, item in items.items()} == {
        "reasoned": "success", "cut": "truncated", "refused": "syntax_error"}
    assert items["reasoned"].response == "def reasoned(a, b):\n    return a + b"
    assert DRAFT in items["reasoned"].reasoning
    assert items["cut"].score == 0.0 and items["cut"].response == ""
    assert document.summary.status_counts["truncated"] == 1
    metrics = document.summary.phase0["suite"]
    assert metrics["truncated_rate"] == pytest.approx(1 / 3)
    assert metrics["syntax_error_rate"] == pytest.approx(1 / 3)
    (log,) = (bench.path / ".req2rank" / "runs").glob("*/qa.jsonl")
    records = {r["problem_id"]: r for r in map(json.loads, log.read_text().splitlines())}
    assert DRAFT in records["reasoned"]["reasoning"]
    assert records["reasoned"]["raw_response"] == ANSWERS["reasoned"]["text"]
    assert records["cut"]["quality_metrics"]["final_status"] == "truncated"
    page = (bench.path / "report.html").read_text()
    assert 'class="chip s-truncated"' in page and '<option value="truncated">' in page
