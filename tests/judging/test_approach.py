"""ApproachJudge: one JSON request per pair of versions, the schema-checked answer, and the
failures it tells apart (an unreadable answer, a failed call)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_req2rank.judging import ApproachJudge
from pytest_req2rank.judging._answer import InvalidAnswer
from pytest_req2rank.judging._approach import (
    APPROACH_PROMPT_VERSION,
    approach_messages,
    approach_request_schema,
    parse_approach_answer,
)
from pytest_req2rank.providers import LiteLLMProvider
from pytest_req2rank.providers.fake import fake_calls, reset_fake_state, set_fake_script

LOOP = "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n"
BUILTIN = "def total(xs):\n    return sum(xs)\n"


@pytest.fixture
def approach_judge() -> Iterator[Any]:
    async def no_sleep(seconds: float) -> None:
        return None

    def make(responses: list[dict[str, Any]], **options: Any) -> ApproachJudge:
        set_fake_script({"models": {"judge": [{"responses": responses}]}})
        return ApproachJudge(LiteLLMProvider("fake/judge", sleep=no_sleep), **options)

    reset_fake_state()
    yield make
    reset_fake_state()


@pytest.mark.parametrize(("text", "same"), [
    ('{"same_approach": true, "rationale": "both loop"}', True),
    ('Sure.\n```json\n{"same_approach": false}\n```', False),
    ('I think {"same_approach": false, "rationale": "x"} is right', False),
])
def test_answers_are_read_like_the_panels(text: str, same: bool) -> None:
    assert parse_approach_answer(text) is same


@pytest.mark.parametrize(("text", "message"), [
    ("same", "not JSON"),
    ('{"same_approach": "yes"}', "same_approach: 'yes' is not of type 'boolean'"),
    ('{"rationale": "x"}', "missing 'same_approach'"),
    ("[true]", "expected a JSON object"),
])
def test_unreadable_answers_say_why(text: str, message: str) -> None:
    with pytest.raises(InvalidAnswer, match=message):
        parse_approach_answer(text)


def test_the_prompt_holds_the_task_and_both_programs_cut_to_size() -> None:
    system, user = approach_messages("Sum a list.", LOOP, "x" * 10_000)
    assert "same approach" in system.content and "untrusted" in system.content
    assert "Sum a list." in user.content and LOOP.strip() in user.content
    assert "more characters" in user.content and '"same_approach"' in user.content


def test_a_verdict_with_its_usage_and_a_deterministic_request(approach_judge: Any) -> None:
    judge = approach_judge([{"text": json.dumps({"same_approach": False}),
                             "usage": {"prompt_tokens": 300, "completion_tokens": 9}}], seed=7)
    verdict = judge.compare("Sum a list.", LOOP, BUILTIN)
    assert verdict.same is False and verdict.failure is None
    assert (verdict.usage.calls, verdict.usage.prompt_tokens) == (1, 300)
    request = judge.request("t", LOOP, BUILTIN)
    assert (request.temperature, request.seed, request.json_mode, request.cache_tag) == (
        0.0, 7, True, APPROACH_PROMPT_VERSION)
    assert fake_calls()[0]["response_format"] == {"type": "json_object"}


def test_invalid_json_is_an_invalid_answer_not_a_verdict(approach_judge: Any) -> None:
    verdict = approach_judge([{"text": "They look alike to me."}]).compare("t", LOOP, BUILTIN)
    assert verdict.same is None and verdict.failure == "invalid_answer"
    assert verdict.error is not None and verdict.error.startswith("invalid answer: not JSON")
    assert verdict.raw == "They look alike to me." and verdict.usage.calls == 1


def test_a_rate_limit_is_retried_and_timeouts_are_a_failed_call(approach_judge: Any) -> None:
    judge = approach_judge([{"error": "rate_limit"}, {"text": '{"same_approach": true}'}])
    verdict = judge.compare("t", LOOP, BUILTIN)
    assert verdict.same is True and verdict.usage.calls == 2 and verdict.usage.retries == 1
    timed_out = approach_judge([{"error": "timeout"}]).compare("t", LOOP, BUILTIN)
    assert timed_out.same is None and timed_out.failure == "call_failed"
    assert timed_out.error is not None and timed_out.error.startswith("timeout:")
    assert timed_out.usage.calls == 2


def test_structured_output_where_the_judge_enforces_a_schema(approach_judge: Any) -> None:
    approach_judge([{"text": "unused"}])  # the fixture's reset around this test
    set_fake_script({"models": {"judge": [{"responses": [
        {"text": json.dumps({"same_approach": True, "rationale": "both sum"})}]}]},
        "info": {"judge": {"supports_response_schema": True}}})
    verdict = ApproachJudge(LiteLLMProvider("fake/judge")).compare("Sum a list.", LOOP, BUILTIN)
    assert verdict.same is True
    assert fake_calls()[0]["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "approach_answer", "schema": approach_request_schema().json_schema,
        "strict": True}}


def test_a_reasoning_approach_judge_is_read_from_its_final_answer(approach_judge: Any) -> None:
    judge = approach_judge([{"text": '<think>\nMaybe {"same_approach": true}? The second uses '
                                     'sum().\n</think>\n{"same_approach": false}'}])
    verdict = judge.compare("Sum a list.", LOOP, BUILTIN)
    assert verdict.same is False and verdict.raw == '{"same_approach": false}'
