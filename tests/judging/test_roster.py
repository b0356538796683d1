"""--r2r-judges: parsing the list, and making judges of it."""

from __future__ import annotations

import pytest

from pytest_req2rank.judging import LLMJudge, build_judges
from pytest_req2rank.judging._static import StaticJudge
from pytest_req2rank.models import STATIC_JUDGE, parse_judges
from pytest_req2rank.providers import LiteLLMProvider


def test_model_strings_are_stripped_and_kept_in_order() -> None:
    assert parse_judges(" r2r/static , openai/gpt-4o,anthropic/claude-sonnet-4-5 ") == (
        "r2r/static",
        "openai/gpt-4o",
        "anthropic/claude-sonnet-4-5",
    )
    assert parse_judges("fake/a") == ("fake/a",)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", r"needs at least one judge model, e\.g\. r2r/static,openai/gpt-4o"),
        ("  ", "needs at least one judge model"),
        ("gpt-4o,,claude", r"without empty entries, got 'gpt-4o,,claude'"),
        ("gpt-4o,", "without empty entries"),
        ("gpt 4o", r"must not contain whitespace, got 'gpt 4o'; separate judges with commas"),
        ("r2r/reference", r"r2r/reference cannot judge; the built-in judge is r2r/static"),
        ("gpt-4o,r2r/static,gpt-4o", r"lists gpt-4o more than once; name each judge once"),
    ],
)
def test_mistakes_are_one_actionable_line(value: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        parse_judges(value)
    assert "\n" not in str(caught.value)


def test_build_judges_makes_the_static_judge_and_llm_judges() -> None:
    judges = build_judges([STATIC_JUDGE, "fake/judge-a"], seed=7, timeout_s=30, max_tokens=512)
    assert isinstance(judges[0], StaticJudge) and judges[0].name == STATIC_JUDGE
    llm = judges[1]
    assert isinstance(llm, LLMJudge) and isinstance(llm.provider, LiteLLMProvider)
    assert (llm.name, llm.seed, llm.timeout_s, llm.max_tokens) == ("fake/judge-a", 7, 30, 512)


def test_build_judges_uses_the_given_provider_factory() -> None:
    made: list[str] = []

    def factory(model: str) -> LiteLLMProvider:
        made.append(model)
        return LiteLLMProvider(model)

    build_judges(["fake/a", STATIC_JUDGE, "fake/b"], provider=factory)
    assert made == ["fake/a", "fake/b"]
