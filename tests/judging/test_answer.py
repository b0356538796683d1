"""Reading a judge's answer: JSON, fenced fallback, embedded object, clamping, rejection."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from pytest_req2rank.judging import parse_judge_answer
from pytest_req2rank.judging._answer import InvalidAnswer, judge_answer_schema

SCORES = {"functionality": 80, "quality": 70, "logic": 60, "security": 90, "engineering": 50}
ANSWER = json.dumps({"scores": SCORES, "rationale": "Solid. "})


def test_the_shipped_schema_is_valid() -> None:
    Draft202012Validator.check_schema(judge_answer_schema())


def test_a_plain_json_answer() -> None:
    answer = parse_judge_answer(ANSWER)
    assert answer.scores == {k: float(v) for k, v in SCORES.items()}
    assert answer.rationale == "Solid."


@pytest.mark.parametrize(
    "text",
    [
        f"Here is my verdict:\n```json\n{ANSWER}\n```\nThanks.",
        f"```JSON\n{ANSWER}\n```",
        f"```json\n{{not json}}\n```\n```json\n{ANSWER}\n```",
        f"My scores are {ANSWER} and that is final.",
        f"Scores {{like this}} first, then: {ANSWER}",
    ],
    ids=["fenced", "fenced-upper", "second-fence", "embedded", "embedded-after-junk"],
)
def test_fallbacks_find_the_object(text: str) -> None:
    assert parse_judge_answer(text).scores["logic"] == 60.0


def test_out_of_range_scores_are_clamped_and_string_numbers_accepted() -> None:
    scores = {**SCORES, "functionality": 150, "security": -5, "quality": " 85 ", "logic": 72.5}
    answer = parse_judge_answer(json.dumps({"scores": scores}))
    assert answer.scores == {
        "functionality": 100.0,
        "quality": 85.0,
        "logic": 72.5,
        "security": 0.0,
        "engineering": 50.0,
    }
    assert answer.rationale == ""


def test_extra_keys_are_ignored() -> None:
    answer = parse_judge_answer(json.dumps({"scores": {**SCORES, "overall": 71}, "confidence": 1}))
    assert set(answer.scores) == set(SCORES)


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (
            {"scores": {k: v for k, v in SCORES.items() if k != "logic"}},
            r"^missing 'logic' in scores$",
        ),
        ({"rationale": "no scores"}, r"^missing 'scores'$"),
        ({"scores": {**SCORES, "logic": "high"}}, r"^scores\.logic is not a number: 'high'$"),
        ({"scores": {**SCORES, "logic": True}}, r"^scores\.logic is not a number: True$"),
        ({"scores": {**SCORES, "logic": None}}, r"^scores\.logic is not a number: None$"),
        ({"scores": [1, 2, 3, 4, 5]}, r"^scores: \[1, 2, 3, 4, 5\] is not of type 'object'$"),
        ({"scores": SCORES, "rationale": 3}, r"^rationale: 3 is not of type 'string'$"),
        ([SCORES], r"^expected a JSON object, got a JSON list$"),
    ],
)
def test_invalid_answers_say_why(answer: object, reason: str) -> None:
    with pytest.raises(InvalidAnswer, match=reason):
        parse_judge_answer(json.dumps(answer))


def test_non_finite_numbers_are_invalid() -> None:
    with pytest.raises(InvalidAnswer, match=r"scores\['logic'\] must be finite"):
        parse_judge_answer(ANSWER.replace('"logic": 60', '"logic": NaN'))


def test_prose_without_json_is_invalid() -> None:
    with pytest.raises(InvalidAnswer, match=r"^not JSON: no JSON object"):
        parse_judge_answer("I would give it an 8 out of 10.")


def test_a_fenced_block_with_a_bad_answer_reports_that_block() -> None:
    bad = json.dumps({"scores": {**SCORES, "quality": "good"}})
    with pytest.raises(InvalidAnswer, match=r"scores\.quality is not a number: 'good'"):
        parse_judge_answer(f"```json\n{bad}\n```")
