"""``LiteLLMProvider.embed`` through LiteLLM's ``aembedding`` and the scripted fake: vectors,
usage and cost, retries, failures, and answers that are no embedding."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_req2rank.providers import LiteLLMProvider, ProviderError
from pytest_req2rank.providers.fake import (
    FakeScriptError,
    fake_calls,
    parse_script,
    reset_fake_state,
    set_fake_script,
)

USAGE = {"prompt_tokens": 5, "completion_tokens": 0}
PRICES = {"emb": {"input_cost_per_token": 1e-6, "output_cost_per_token": 0.0}}


@pytest.fixture
def embedder() -> Iterator[Any]:
    delays: list[float] = []

    async def no_sleep(seconds: float) -> None:
        delays.append(seconds)

    def make(rules: list[dict[str, Any]], **script: Any) -> LiteLLMProvider:
        set_fake_script({"models": {"emb": rules}, **script})
        provider = LiteLLMProvider("fake/emb", sleep=no_sleep)
        provider.delays = delays  # type: ignore[attr-defined]
        return provider

    reset_fake_state()
    yield make
    reset_fake_state()


def test_each_input_gets_its_rules_vector_with_usage_and_cost(embedder: Any) -> None:
    provider = embedder([{"match": "loop", "responses": [{"embedding": [1, 0], "usage": USAGE}]},
                         {"responses": [{"embedding": [0, 3], "usage": USAGE}]}],
                        prices=PRICES)
    result = provider.embed(["def f(): return 1", "for x in loop: pass"])
    assert result.vectors == [[0.0, 3.0], [1.0, 0.0]]
    assert (result.prompt_tokens, result.attempts, result.model) == (10, 1, "fake/emb")
    assert result.cost_usd == pytest.approx(10e-6)
    assert result.usage.calls == 1 and result.usage.cost_usd == pytest.approx(10e-6)
    assert fake_calls()[-1]["input"] == ["def f(): return 1", "for x in loop: pass"]


def test_a_rate_limit_is_retried_and_a_refusal_is_an_error(embedder: Any) -> None:
    provider = embedder([{"match": "busy", "responses": [{"error": "rate_limit", "retry_after": 2},
                                                         {"embedding": [1.0]}]},
                         {"responses": [{"error": "auth"}]}])
    assert provider.embed(["busy"]).attempts == 2 and provider.delays == [2.0]
    with pytest.raises(ProviderError) as failed:
        provider.embed(["other"])
    assert failed.value.kind == "api_error" and "AuthenticationError" in failed.value.message


def test_timeouts_twice_are_a_timeout(embedder: Any) -> None:
    provider = embedder([{"responses": [{"error": "timeout"}]}])
    with pytest.raises(ProviderError) as failed:
        provider.embed(["x"])
    assert failed.value.kind == "timeout" and failed.value.attempts == 2


def test_a_vector_that_is_no_embedding_is_an_error_not_a_value(embedder: Any) -> None:
    provider = embedder([{"responses": [{"embedding": []}]}])
    with pytest.raises(ProviderError, match="empty or not finite"):
        provider.embed(["x", "y"])


def test_a_text_answer_to_an_embedding_and_the_reverse_are_script_errors(embedder: Any) -> None:
    provider = embedder([{"responses": [{"text": "hello"}]}])
    with pytest.raises(ProviderError, match="script an \"embedding\""):
        provider.embed(["x"])
    with pytest.raises(FakeScriptError, match='exactly one of "text", "embedding" or "error"'):
        parse_script({"models": {"m": [{"responses": [{"text": "a", "embedding": [1.0]}]}]}})
