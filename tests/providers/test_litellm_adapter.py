"""The LiteLLM adapter against the scripted fake: answers, retries, accounting, concurrency."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_req2rank.providers import (
    CompletionRequest,
    LiteLLMProvider,
    ProviderConfigError,
    ProviderError,
)
from pytest_req2rank.providers.fake import read_fake_log

Install = Callable[[dict[str, Any]], Path]
MakeProvider = Callable[..., LiteLLMProvider]
Ask = Callable[..., CompletionRequest]
ANSWER = "```python\ndef add(a, b):\n    return a + b\n```"


def script(*responses: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"models": {"coder": [{"responses": list(responses)}]}, **extra}


def test_plain_answer_with_usage_and_parameters(
    fake_script: Install, make_provider: MakeProvider, ask: Ask, delays: list[float]
) -> None:
    log = fake_script(script({"text": ANSWER, "usage": {"prompt_tokens": 12, "completion_tokens": 30}}))
    completion = make_provider().complete(
        ask("write add", temperature=0.2, max_tokens=256, seed=7, json_mode=True)
    )
    assert completion.text == ANSWER and completion.model == "fake/coder"
    assert (completion.prompt_tokens, completion.completion_tokens) == (12, 30)
    assert completion.attempts == 1 and delays == [] and completion.latency_s >= 0
    assert completion.raw["finish_reason"] == "stop" and completion.raw["retry_delays_s"] == []
    (call,) = read_fake_log(log)
    assert call["messages"] == [{"role": "user", "content": "write add"}]
    assert (call["temperature"], call["max_tokens"], call["seed"]) == (0.2, 256, 7)
    assert call["response_format"] == {"type": "json_object"} and call["outcome"] == "text"


def test_rate_limit_backs_off_1_2_4_then_is_an_api_error(
    fake_script: Install, make_provider: MakeProvider, ask: Ask, delays: list[float]
) -> None:
    log = fake_script(script({"error": "rate_limit"}))
    with pytest.raises(ProviderError) as info:
        make_provider().complete(ask())
    assert delays == [1.0, 2.0, 4.0]
    assert info.value.kind == "api_error" and info.value.attempts == 4
    assert info.value.message.startswith("RateLimitError: scripted rate limit for fake/coder")
    assert info.value.message.endswith("(gave up after 4 attempts)")
    assert "\n" not in info.value.message
    assert [c["outcome"] for c in read_fake_log(log)] == ["rate_limit"] * 4


def test_rate_limit_then_success(
    fake_script: Install, make_provider: MakeProvider, ask: Ask, delays: list[float]
) -> None:
    fake_script(script({"error": "rate_limit"}, {"text": ANSWER}))
    completion = make_provider().complete(ask())
    assert (completion.text, completion.attempts, delays) == (ANSWER, 2, [1.0])
    assert completion.raw["retry_delays_s"] == [1.0]


def test_retry_after_is_honoured_and_capped(
    fake_script: Install, make_provider: MakeProvider, ask: Ask, delays: list[float]
) -> None:
    fake_script(script({"error": "rate_limit", "retry_after": 5}, {"error": "rate_limit"},
                       {"error": "service_unavailable", "retry_after": 900}, {"text": "ok"}))
    assert make_provider().complete(ask()).attempts == 4
    assert delays == [5.0, 2.0, 60.0]


def test_server_and_connection_errors_use_the_same_backoff(
    fake_script: Install, make_provider: MakeProvider, ask: Ask, delays: list[float]
) -> None:
    fake_script(script({"error": "server_error"}, {"error": "connection"}, {"text": "ok"}))
    assert make_provider().complete(ask()).text == "ok"
    assert delays == [1.0, 2.0]


def test_timeout_then_success(
    fake_script: Install, make_provider: MakeProvider, ask: Ask, delays: list[float]
) -> None:
    fake_script(script({"error": "timeout"}, {"text": ANSWER}))
    completion = make_provider().complete(ask())
    assert (completion.text, completion.attempts, delays) == (ANSWER, 2, [])


def test_two_timeouts_are_a_timeout(
    fake_script: Install, make_provider: MakeProvider, ask: Ask, delays: list[float]
) -> None:
    log = fake_script(script({"error": "timeout"}))
    with pytest.raises(ProviderError) as info:
        make_provider().complete(ask())
    assert info.value.kind == "timeout" and info.value.attempts == 2
    assert info.value.message.startswith("Timeout: scripted timeout for fake/coder")
    assert len(read_fake_log(log)) == 2 and delays == []


@pytest.mark.parametrize(
    ("error", "cls"),
    [("auth", "AuthenticationError"), ("bad_request", "BadRequestError"),
     ("not_found", "NotFoundError"), ("context_window", "ContextWindowExceededError"),
     ("content_policy", "ContentPolicyViolationError")],
)
def test_other_failures_are_api_errors_without_retry(
    fake_script: Install, make_provider: MakeProvider, ask: Ask, delays: list[float],
    error: str, cls: str,
) -> None:
    log = fake_script(script({"error": error}, {"text": "never reached"}))
    with pytest.raises(ProviderError) as info:
        make_provider().complete(ask())
    assert info.value.kind == "api_error" and info.value.attempts == 1
    assert info.value.message.startswith(f"{cls}: ") and "\n" not in info.value.message
    assert len(read_fake_log(log)) == 1 and delays == []


@pytest.mark.parametrize("text", ["", "Sorry, I cannot write code.", "{\"files\": [oops"])
def test_invalid_or_empty_answers_pass_through(
    fake_script: Install, make_provider: MakeProvider, ask: Ask, text: str
) -> None:
    fake_script(script({"text": text}))
    completion = make_provider().complete(ask())
    assert completion.text == text and completion.attempts == 1


def test_cost_from_registered_prices(
    fake_script: Install, make_provider: MakeProvider, ask: Ask
) -> None:
    fake_script(script(
        {"text": "ok", "usage": {"prompt_tokens": 100, "completion_tokens": 50}},
        prices={"coder": {"input_cost_per_token": 1e-6, "output_cost_per_token": 4e-6}},
    ))
    completion = make_provider().complete(ask())
    assert completion.cost_usd == pytest.approx(100 * 1e-6 + 50 * 4e-6)


@pytest.mark.parametrize(
    ("prices", "usage"),
    [
        ({}, {"prompt_tokens": 100, "completion_tokens": 50}),
        ({"coder": {"input_cost_per_token": 0, "output_cost_per_token": 0}},
         {"prompt_tokens": 100, "completion_tokens": 50}),
        ({"coder": {"input_cost_per_token": 1e-6, "output_cost_per_token": 1e-6}}, None),
    ],
    ids=["unknown-price", "zero-price", "unknown-usage"],
)
def test_unknown_cost_is_none_never_zero(
    fake_script: Install, make_provider: MakeProvider, ask: Ask,
    prices: dict[str, Any], usage: dict[str, int] | None,
) -> None:
    step: dict[str, Any] = {"text": "ok"} | ({"usage": usage} if usage else {})
    fake_script(script(step, prices=prices))
    completion = make_provider().complete(ask())
    assert completion.cost_usd is None
    expected = (None, None) if usage is None else (100, 50)
    assert (completion.prompt_tokens, completion.completion_tokens) == expected


def peak_in_flight(make_provider: MakeProvider, ask: Ask, concurrency: int, calls: int) -> int:
    provider = make_provider(concurrency=concurrency)

    async def burst() -> None:
        await asyncio.gather(*(provider.acomplete(ask(f"task {i}")) for i in range(calls)))

    asyncio.run(burst())
    return max(int(call["in_flight"]) for call in read_fake_log())


def test_concurrency_cap_is_respected(fake_script: Install, make_provider: MakeProvider,
                                      ask: Ask) -> None:
    fake_script(script({"text": "ok", "delay_s": 0.2}))
    assert peak_in_flight(make_provider, ask, concurrency=2, calls=6) == 2


def test_without_a_tight_cap_calls_overlap(fake_script: Install, make_provider: MakeProvider,
                                           ask: Ask) -> None:
    fake_script(script({"text": "ok", "delay_s": 0.2}))
    assert peak_in_flight(make_provider, ask, concurrency=6, calls=6) > 2


def test_complete_is_thread_safe(fake_script: Install, make_provider: MakeProvider,
                                 ask: Ask) -> None:
    from concurrent.futures import ThreadPoolExecutor

    fake_script({"models": {"coder": [{"match": f"^q{i}$", "responses": [{"text": f"a{i}", "delay_s": 0.1}]}
                                      for i in range(8)]}})
    provider = make_provider(concurrency=3)
    with ThreadPoolExecutor(max_workers=4) as pool:
        texts = list(pool.map(lambda i: provider.complete(ask(f"q{i}")).text, range(8)))
    assert texts == [f"a{i}" for i in range(8)]
    assert max(call["in_flight"] for call in read_fake_log()) <= 3


def test_request_arguments(monkeypatch: pytest.MonkeyPatch, ask: Ask) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    local = LiteLLMProvider("openai/qwen", api_base="http://127.0.0.1:8000/v1")
    kwargs = local.request_kwargs(ask("hi", max_tokens=10, seed=1, json_mode=True, timeout_s=30))
    assert kwargs == {
        "model": "openai/qwen", "messages": [{"role": "user", "content": "hi"}],
        "temperature": 0.0, "max_tokens": 10, "seed": 1, "timeout": 30.0,
        "response_format": {"type": "json_object"}, "drop_params": True,
        "max_retries": 0, "num_retries": 0,
        "api_base": "http://127.0.0.1:8000/v1", "api_key": "sk-no-key-required",
    }
    monkeypatch.setenv("OPENAI_API_KEY", "sk-user-key-0123456789")
    assert "api_key" not in local.request_kwargs(ask())
    plain = LiteLLMProvider("anthropic/claude-sonnet-4-5").request_kwargs(ask())
    assert not {"api_base", "api_key", "max_tokens", "seed", "response_format"} & set(plain)


@pytest.mark.parametrize(
    "model",
    ["gpt-4o", "anthropic/claude-sonnet-4-5", "gemini/gemini-2.0-flash", "azure/my-deployment",
     "openai/qwen2.5-coder", "ollama_chat/llama3.1", "hosted_vllm/qwen", "fake/coder"],
)
def test_litellm_routes_every_supported_model_string(model: str) -> None:
    LiteLLMProvider(model, api_base="http://127.0.0.1:8000/v1").validate()


def test_an_unroutable_model_is_a_config_error(ask: Ask) -> None:
    provider = LiteLLMProvider("mystery-model")
    with pytest.raises(ProviderConfigError, match="LiteLLM cannot route model 'mystery-model'"):
        provider.complete(ask())


def test_unscripted_model_or_missing_script_fails_fast(
    fake_script: Install, make_provider: MakeProvider, ask: Ask, delays: list[float],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_script(script({"text": "ok"}))
    with pytest.raises(ProviderError, match=r"NotFoundError: fake/other is not in the fake script "
                                            r"\(scripted models: fake/coder\)") as info:
        make_provider("fake/other").complete(ask())
    assert info.value.attempts == 1
    monkeypatch.delenv("R2R_FAKE_SCRIPT")
    with pytest.raises(ProviderError, match="BadRequestError: no fake script: set R2R_FAKE_SCRIPT"):
        make_provider().complete(ask())
    assert delays == []


def test_acomplete_from_another_loop(fake_script: Install, make_provider: MakeProvider,
                                     ask: Ask) -> None:
    fake_script(script({"text": "async ok"}))
    provider = make_provider()
    assert asyncio.run(provider.acomplete(ask())).text == "async ok"
    assert provider.complete(ask()).text == "async ok"
