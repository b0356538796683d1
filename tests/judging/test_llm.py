"""LLMJudge over the scripted fake provider: the request, the answers, the failures."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib.resources import files

import pytest
from jsonschema import Draft202012Validator

from pytest_req2rank.judging import LLMJudge
from pytest_req2rank.judging._answer import judge_answer_schema
from pytest_req2rank.judging._approach import APPROACH_SCHEMA_FILE, approach_request_schema
from pytest_req2rank.judging._llm import judge_request_schema
from pytest_req2rank.judging._prompt import JUDGE_PROMPT_VERSION, judge_messages
from pytest_req2rank.models import ExecutionResult, TestOutcome
from pytest_req2rank.providers import LiteLLMProvider, strict_mode_problems
from pytest_req2rank.providers.fake import fake_calls, set_fake_script

from .conftest import make_case, passing

MakeJudge = Callable[..., LLMJudge]
SCORES = {"functionality": 80, "quality": 70, "logic": 60, "security": 90, "engineering": 50}
ANSWER = json.dumps({"scores": SCORES, "rationale": "Correct but terse."})
USAGE = {"prompt_tokens": 900, "completion_tokens": 60}


def test_a_valid_answer_is_a_verdict(fake_judge: MakeJudge) -> None:
    judge = fake_judge([{"text": ANSWER, "usage": USAGE}])
    verdict = judge.judge(make_case(ratio=1.0, execution=passing("adds")))
    assert verdict.judge == "fake/judge" and verdict.error is None
    assert verdict.scores == {k: float(v) for k, v in SCORES.items()}
    assert verdict.overall == 70.5  # .3·80 + .25·70 + .25·60 + .1·90 + .1·50
    assert verdict.rationale == "Correct but terse." and verdict.raw == ANSWER
    assert (verdict.usage.calls, verdict.usage.prompt_tokens, verdict.usage.completion_tokens) == (
        1,
        900,
        60,
    )
    assert verdict.latency_s >= 0 and not verdict.self_judging


def test_the_request_is_deterministic_json_and_tagged(fake_judge: MakeJudge) -> None:
    judge = fake_judge([{"text": ANSWER}], seed=42, max_tokens=777)
    request = judge.request(make_case())
    assert (request.temperature, request.seed, request.json_mode, request.cache_tag) == (
        0.0,
        42,
        True,
        JUDGE_PROMPT_VERSION,
    )
    judge.judge(make_case())
    call = fake_calls()[0]
    assert (call["temperature"], call["seed"], call["max_tokens"]) == (0.0, 42, 777)
    assert call["response_format"] == {"type": "json_object"}


def test_the_prompt_holds_requirement_guidance_code_and_evidence() -> None:
    execution = ExecutionResult(
        status="wrong_answer",
        tests=[
            TestOutcome(name="adds", status="success"),
            TestOutcome(name="negatives", status="wrong_answer", detail="expected -1\n got 1"),
            TestOutcome(name="huge", status="timeout", detail="x" * 1000),
        ],
    )
    case = make_case(
        ratio=0.5,
        execution=execution,
        priorities={"adds": "must", "negatives": "should", "huge": "nice"},
    )
    system, user = judge_messages(case)
    assert system.role == "system" and "untrusted" in system.content
    text = user.content
    for part in (
        "Write add(a, b) returning the sum.",
        "- negative numbers",
        "### calc.py",
        "def add(a: int, b: int) -> int:",
        "Status: wrong_answer",
        "Passed 1 of 3 tests; priority-weighted 0.50",
        "must 1.00, should 0.00, nice 0.00",
        "- adds [must] success",
        "- negatives [should] wrong_answer: expected -1 got 1",
        "functionality (30 %)",
        "quality (25 %)",
        "logic (25 %)",
        "security (10 %)",
        "engineering (10 %)",
        '{"scores": {"functionality": <0-100>',
    ):
        assert part in text, part
    assert "x" * 300 in text and "x" * 301 not in text  # test details are truncated


def test_the_prompt_without_execution_and_with_custom_weights() -> None:
    weights = {
        "functionality": 0.4,
        "quality": 0.2,
        "logic": 0.2,
        "security": 0.1,
        "engineering": 0.1,
    }
    text = judge_messages(make_case(), weights)[1].content
    assert "No hidden test was run" in text and "functionality (40 %)" in text


def test_code_with_fences_stays_inside_its_block() -> None:
    text = judge_messages(make_case({"notes.md": "```python\nx = 1\n```\n"}))[1].content
    assert "````\n```python\nx = 1\n```\n````" in text


@pytest.mark.parametrize(
    "text",
    [f"Verdict:\n```json\n{ANSWER}\n```", f"After careful review, {ANSWER} is my answer."],
    ids=["fenced", "prose"],
)
def test_fallback_answers_count(fake_judge: MakeJudge, text: str) -> None:
    verdict = fake_judge([{"text": text}]).judge(make_case())
    assert verdict.scores is not None and verdict.scores["logic"] == 60.0 and verdict.raw == text


def test_out_of_range_scores_are_clamped(fake_judge: MakeJudge) -> None:
    answer = json.dumps({"scores": {**SCORES, "functionality": 150, "security": -5}})
    verdict = fake_judge([{"text": answer}]).judge(make_case())
    assert verdict.scores is not None
    assert (verdict.scores["functionality"], verdict.scores["security"]) == (100.0, 0.0)
    assert verdict.overall == 67.5  # .3·100 + .25·70 + .25·60 + .1·0 + .1·50


def test_a_missing_dimension_drops_the_verdict(fake_judge: MakeJudge) -> None:
    answer = json.dumps({"scores": {k: v for k, v in SCORES.items() if k != "logic"}})
    verdict = fake_judge([{"text": answer, "usage": USAGE}]).judge(make_case())
    assert verdict.scores is None and verdict.overall is None
    assert verdict.error == "invalid answer: missing 'logic' in scores"
    assert verdict.raw == answer and verdict.usage.prompt_tokens == 900


def test_prose_without_scores_drops_the_verdict(fake_judge: MakeJudge) -> None:
    verdict = fake_judge([{"text": "Looks fine to me, 8/10."}]).judge(make_case())
    assert verdict.scores is None and verdict.error is not None
    assert verdict.error.startswith("invalid answer: not JSON")


def test_rate_limits_exhausted_drop_the_verdict(fake_judge: MakeJudge) -> None:
    verdict = fake_judge([{"error": "rate_limit"}]).judge(make_case())
    assert verdict.scores is None and verdict.error is not None
    assert verdict.error.startswith("api_error: RateLimitError")
    assert "gave up after 4 attempts" in verdict.error
    assert (verdict.usage.calls, verdict.usage.retries) == (4, 3)
    assert len(fake_calls()) == 4


def test_a_rate_limit_then_an_answer_counts(fake_judge: MakeJudge) -> None:
    verdict = fake_judge([{"error": "rate_limit"}, {"text": ANSWER}]).judge(make_case())
    assert verdict.scores is not None and verdict.usage.retries == 1


def test_two_timeouts_drop_the_verdict(fake_judge: MakeJudge) -> None:
    verdict = fake_judge([{"error": "timeout"}]).judge(make_case())
    assert verdict.scores is None and verdict.error is not None
    assert verdict.error.startswith("timeout: ") and "timed out 2 times" in verdict.error
    assert len(fake_calls()) == 2


def test_a_fatal_provider_error_drops_the_verdict(fake_judge: MakeJudge) -> None:
    verdict = fake_judge([{"error": "auth"}]).judge(make_case())
    assert verdict.error is not None and verdict.error.startswith("api_error: AuthenticationError")
    assert len(fake_calls()) == 1


@pytest.mark.usefixtures("fake_judge")  # its fake state, reset before and after
def test_structured_output_with_the_answer_schema_where_the_judge_enforces_one() -> None:
    """A judge whose model information says it enforces a JSON Schema is asked for the answer
    schema in strict form; any other judge for JSON mode. Both answers are validated here."""
    set_fake_script({
        "models": {name: [{"responses": [{"text": ANSWER}]}] for name in ("strict", "loose")},
        "info": {"strict": {"supports_response_schema": True}},
    })
    case = make_case()
    for name in ("strict", "loose"):
        verdict = LLMJudge(LiteLLMProvider(f"fake/{name}")).judge(case)
        assert verdict.scores == {k: float(v) for k, v in SCORES.items()}
    strict, loose = fake_calls()
    assert strict["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "judge_answer", "schema": judge_request_schema().json_schema, "strict": True}}
    assert loose["response_format"] == {"type": "json_object"}


def test_the_requested_schemas_meet_strict_mode_and_stay_within_the_validated_ones() -> None:
    """OpenAI's strict mode: closed objects, every property required, no document metadata.
    The shipped schemas are lenient (extra keys, optional rationale) and are not fit as they
    are; the requested forms are, and every answer they admit the validation admits."""
    for requested, lenient, valid in (
        (judge_request_schema(), judge_answer_schema(),
         {"scores": SCORES, "rationale": "fine"}),
        (approach_request_schema(), json.loads(
            (files("pytest_req2rank.judging") / APPROACH_SCHEMA_FILE).read_text("utf-8")),
         {"same_approach": True, "rationale": "both loop"}),
    ):
        assert requested.strict and strict_mode_problems(requested.json_schema) == []
        problems = strict_mode_problems(lenient)
        assert "<root>: unsupported keyword(s) $id, $schema" in problems
        assert any("every property must be required (rationale)" in p for p in problems)
        strict_validator = Draft202012Validator(requested.json_schema)
        lenient_validator = Draft202012Validator(lenient)
        assert strict_validator.is_valid(valid) and lenient_validator.is_valid(valid)
        extra = {**valid, "comment": "more"}
        assert not strict_validator.is_valid(extra) and lenient_validator.is_valid(extra)
        without_rationale = {k: v for k, v in valid.items() if k != "rationale"}
        assert not strict_validator.is_valid(without_rationale)
        assert lenient_validator.is_valid(without_rationale)


def test_a_reasoning_judge_is_read_from_its_final_answer_not_its_reasoning(
        fake_judge: MakeJudge) -> None:
    decoy = json.dumps({"scores": dict.fromkeys(SCORES, 5), "rationale": "first thought"})
    judge = fake_judge([{"text": f"<think>\nDraft: {decoy}\nNo, reconsider.\n</think>\n\n{ANSWER}"}])
    verdict = judge.judge(make_case(ratio=1.0, execution=passing("adds")))
    assert verdict.error is None and verdict.raw == ANSWER
    assert verdict.scores == {k: float(v) for k, v in SCORES.items()}
    cut = fake_judge([{"text": f"<think>\nDraft: {decoy}\nNow the secur", "finish_reason": "length"}],
                     name="cut")
    assert cut.judge(make_case()).error == "invalid answer: not JSON: no JSON object, fenced " \
        "```json block or embedded {...} found"
