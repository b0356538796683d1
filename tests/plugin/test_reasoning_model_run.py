"""A reasoning model through pytest: its effort and budgets in the header and on every call,
the tokens it spent reasoning in the summary and the results; an effort it cannot take stops
the run at start with one line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from _usage import (
    FUNCTION_ANSWER,
    PROGRAM_ANSWER,
    SERIAL,
    SUITE,
    make_bench,
    one_line,
    use_fake_script,
)

from pytest_req2rank.providers.fake import read_fake_log, reset_fake_state

ITEMS = 12
"""The status suite's tasks, each answered right by the fake."""


@pytest.fixture
def bench(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.Pytester]:
    """``fake/thinker`` reasons (150 of its 200 completion tokens) and may write 3000 tokens at
    most; ``fake/coder`` is a plain chat model."""
    bench = make_bench(pytester)
    usage: dict[str, Any] = {"usage": {"prompt_tokens": 50, "completion_tokens": 200,
                                       "reasoning_tokens": 150}}
    answers = [{"match": "standard input", "responses": [{"text": PROGRAM_ANSWER, **usage}]},
               {"responses": [{"text": FUNCTION_ANSWER, **usage}]}]
    script = {
        "models": {"thinker": answers, "coder": answers},
        "prices": {"thinker": {"input_cost_per_token": 1e-6, "output_cost_per_token": 4e-6}},
        "info": {"thinker": {"max_output_tokens": 3000, "supports_reasoning": True}},
    }
    use_fake_script(bench.path, script, monkeypatch)
    yield bench
    reset_fake_state()


def test_a_reasoning_model_run_says_what_it_sent_and_counts_its_reasoning(
        bench: pytest.Pytester) -> None:
    result = bench.runpytest(SUITE, "--r2r-model=fake/thinker", "--r2r-reasoning-effort=high",
                             "--r2r-max-tokens=4000", "--r2r-temperature=0.5",
                             "--r2r-json=results.json", *SERIAL)
    result.assert_outcomes(passed=ITEMS)
    cost = ITEMS * (50 * 1e-6 + 200 * 4e-6)
    result.stdout.fnmatch_lines([
        ("req2rank: target model parameters: reasoning effort high; 4096 more output tokens for "
        "reasoning; output budget 8096 capped at fake/thinker's maximum of 3000 tokens"),
        # one call more than the items: the preflight's
        (f"model calls {ITEMS + 1} | prompt tokens {50 * ITEMS} | completion tokens {200 * ITEMS} "
        f"({150 * ITEMS} reasoning) | cost ${cost:.4f}"),
    ])
    calls = read_fake_log(bench.path / "calls.jsonl", preflight=False)
    assert len(calls) == ITEMS
    assert {(c["reasoning_effort"], c["max_tokens"], c["temperature"]) for c in calls} == {
        ("high", 3000, 0.5)}
    document = json.loads((bench.path / "results.json").read_text())
    assert document["run"]["settings"]["reasoning_effort"] == "high"
    totals = document["summary"]["totals"]
    assert (totals["completion_tokens"], totals["reasoning_tokens"]) == (200 * ITEMS, 150 * ITEMS)
    assert totals["cost_usd"] == pytest.approx(cost)
    assert {item["usage"]["reasoning_tokens"] for item in document["items"]} == {150}


def test_a_chat_model_run_has_no_parameter_line(bench: pytest.Pytester) -> None:
    """A model whose parameters go as given: no header line; the reasoning tokens it reports
    are counted all the same."""
    result = bench.runpytest(SUITE, "--r2r-model=fake/coder", *SERIAL)
    result.assert_outcomes(passed=ITEMS)
    assert "target model parameters" not in result.stdout.str()
    result.stdout.fnmatch_lines([f"model calls {ITEMS + 1} | *({150 * ITEMS} reasoning)*"])
    assert {c["reasoning_effort"] for c in read_fake_log(bench.path / "calls.jsonl", preflight=False)} == {None}


@pytest.mark.parametrize(("args", "expected"), [
    (("--r2r-model=fake/coder", "--r2r-reasoning-effort=low"),
     ("--r2r-model: fake/coder does not take reasoning effort 'low' through LiteLLM (its model "
     "information does not say it reasons (supports_reasoning)); leave --r2r-reasoning-effort "
     "out, pick another level, or benchmark a reasoning model*")),
    (("--r2r-model=fake/thinker", "--r2r-reasoning-effort=extreme"),
     ("--r2r-reasoning-effort: expected one of none, minimal, low, medium, high, xhigh, max, "
     "got 'extreme'")),
    (("--r2r-reasoning-effort=high",),
     ("--r2r-reasoning-effort: r2r/reference answers offline and takes no reasoning effort; "
     "pass --r2r-model=MODEL, or leave the option out")),
])
def test_an_effort_that_cannot_be_sent_stops_the_run_at_start(
        bench: pytest.Pytester, args: tuple[str, ...], expected: str) -> None:
    one_line(bench.runpytest(SUITE, *args, *SERIAL), expected)
    assert read_fake_log(bench.path / "calls.jsonl", preflight=False) == []
