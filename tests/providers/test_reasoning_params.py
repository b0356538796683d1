"""What a reasoning model is sent: the provider's own parameter names, no temperature it
refuses, a reasoning effort it takes (or a stop at start), budgets that fit the model, and the
reasoning tokens it spent — decided with the pinned LiteLLM's model information, offline."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from pytest_req2rank.models import ReasoningEffort
from pytest_req2rank.providers import (
    AnswerSchema,
    CompletionRequest,
    LiteLLMProvider,
    ProviderConfigError,
    check_model,
    parameter_notes,
)
from pytest_req2rank.providers._cache import cache_key
from pytest_req2rank.providers.fake import read_fake_log

Install = Callable[[dict[str, Any]], Path]
Ask = Callable[..., CompletionRequest]
SCHEMA = AnswerSchema(name="answer", json_schema={
    "type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
    "additionalProperties": False})
STRUCTURED = {"type": "json_schema", "json_schema": {
    "name": "answer", "schema": SCHEMA.json_schema, "strict": True}}
JSON_MODE = {"type": "json_object"}
LOCAL = "http://127.0.0.1:8000/v1"


def sent(model: str, request: CompletionRequest, *, effort: ReasoningEffort | None = None,
         api_base: str | None = None) -> dict[str, Any]:
    """The arguments the adapter passes litellm for ``request``, without the fixed ones."""
    kwargs = LiteLLMProvider(model, api_base=api_base, reasoning_effort=effort).request_kwargs(
        request)
    assert (kwargs.pop("drop_params"), kwargs.pop("max_retries"), kwargs.pop("num_retries")) == (
        True, 0, 0)
    for fixed in ("model", "messages", "timeout", "api_base", "api_key"):
        kwargs.pop(fixed, None)
    return kwargs


# (model, effort, what is sent for 2048 answer tokens at temperature 0 with the schema)
CASES: list[tuple[str, ReasoningEffort | None, dict[str, Any]]] = [
    # a chat model: everything as asked
    ("gpt-4o", None, {"temperature": 0.0, "max_tokens": 2048, "response_format": STRUCTURED}),
    # o-series: no temperature (only its default), 2048 more tokens for its reasoning (medium)
    ("o3-mini", None, {"max_tokens": 4096, "response_format": STRUCTURED}),
    ("o3-mini", "high", {"max_tokens": 6144, "response_format": STRUCTURED,
                         "reasoning_effort": "high"}),
    ("gpt-5", "minimal", {"max_tokens": 2176, "response_format": STRUCTURED,
                          "reasoning_effort": "minimal"}),
    # Claude thinks only when asked; thinking takes temperature 1 only, and its budget
    # (LiteLLM's 4096 for high) must fit below max_tokens
    ("anthropic/claude-3-7-sonnet-20250219", None,
     {"temperature": 0.0, "max_tokens": 2048, "response_format": STRUCTURED}),
    ("anthropic/claude-3-7-sonnet-20250219", "high",
     {"max_tokens": 6144, "response_format": STRUCTURED, "reasoning_effort": "high"}),
    # DeepSeek's reasoner thinks unasked; asked for an effort, LiteLLM switches thinking on
    ("deepseek/deepseek-reasoner", None,
     {"temperature": 0.0, "max_tokens": 4096, "response_format": STRUCTURED}),
    ("deepseek/deepseek-reasoner", "low",
     {"max_tokens": 3072, "response_format": STRUCTURED, "reasoning_effort": "low"}),
    # Ollama: LiteLLM has no model information, so no cap; a self-hosted server gets the schema
    ("ollama_chat/qwen3", "low", {"temperature": 0.0, "max_tokens": 3072,
                                  "response_format": STRUCTURED, "reasoning_effort": "low"}),
    ("gemini/gemini-2.5-pro", "low", {"temperature": 0.0, "max_tokens": 3072,
                                      "response_format": STRUCTURED, "reasoning_effort": "low"}),
    # LiteLLM knows this model and says it enforces no schema: JSON mode
    ("groq/llama-3.1-8b-instant", None,
     {"temperature": 0.0, "max_tokens": 2048, "response_format": JSON_MODE}),
]


@pytest.mark.parametrize(("model", "effort", "expected"), CASES,
                         ids=[f"{m}-{e}" for m, e, _ in CASES])
def test_what_each_model_is_sent(model: str, effort: ReasoningEffort | None,
                                 expected: dict[str, Any], ask: Ask) -> None:
    request = ask(max_tokens=2048, temperature=0.0, answer_schema=SCHEMA, json_mode=True)
    assert sent(model, request, effort=effort) == expected


def test_an_openai_compatible_server_gets_the_schema_and_the_effort_as_given(
        monkeypatch: pytest.MonkeyPatch, ask: Ask) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    request = ask(max_tokens=300, temperature=0.2, answer_schema=SCHEMA)
    assert sent("openai/qwen3", request, api_base=LOCAL) == {
        "temperature": 0.2, "max_tokens": 300, "response_format": STRUCTURED}
    # an unknown model behind a gateway reasons when asked to: its budget grows by LiteLLM's
    # thinking budget for the effort
    assert sent("openai/qwen3", request, api_base=LOCAL, effort="high") == {
        "temperature": 0.2, "max_tokens": 4396, "response_format": STRUCTURED,
        "reasoning_effort": "high"}
    # without an answer schema, JSON mode stays JSON mode, and plain text stays plain
    assert sent("openai/qwen3", ask(json_mode=True), api_base=LOCAL)["response_format"] == \
        JSON_MODE
    assert "response_format" not in sent("openai/qwen3", ask(), api_base=LOCAL)


def test_the_default_temperature_of_a_reasoning_model_is_sent(ask: Ask) -> None:
    assert sent("o3-mini", ask(temperature=1.0))["temperature"] == 1.0
    assert sent("anthropic/claude-3-7-sonnet-20250219", ask(temperature=1.0),
                effort="low")["temperature"] == 1.0


def test_a_budget_never_exceeds_the_models_maximum(ask: Ask) -> None:
    assert sent("gpt-4o", ask(max_tokens=32768))["max_tokens"] == 16384
    assert sent("deepseek/deepseek-chat", ask(max_tokens=16384))["max_tokens"] == 8192
    # the reasoning share counts against the maximum too
    assert sent("o3-mini", ask(max_tokens=99_000), effort="high")["max_tokens"] == 100_000


@pytest.mark.parametrize(("model", "effort", "why"), [
    ("gpt-4o", "low", "openai does not support parameters: ['reasoning_effort']"),
    ("gemini/gemini-2.0-flash", "high", ("gemini does not support parameters: "
                                         "['reasoning_effort']")),
    ("gpt-5", "xhigh", "reasoning_effort=xhigh is not supported for this model"),
    ("gemini/gemini-2.5-pro", "max", "Invalid reasoning effort: max"),
])
def test_an_effort_the_model_cannot_take_stops_at_start(
        model: str, effort: ReasoningEffort, why: str, ask: Ask) -> None:
    with pytest.raises(ProviderConfigError) as info:
        check_model(model, reasoning_effort=effort)
    message = str(info.value)
    assert message.startswith(f"{model} does not take reasoning effort {effort!r} through "
                              f"LiteLLM ({why}")
    assert "leave --r2r-reasoning-effort out" in message and "\n" not in message
    assert "drop_params" not in message
    with pytest.raises(ProviderConfigError, match="does not take reasoning effort"):
        LiteLLMProvider(model, reasoning_effort=effort).request_kwargs(ask())


def test_models_that_take_an_effort_pass_the_check() -> None:
    for model in ("o3-mini", "gpt-5", "anthropic/claude-sonnet-4-20250514",
                  "deepseek/deepseek-reasoner", "ollama_chat/qwen3", "xai/grok-3-mini"):
        check_model(model, reasoning_effort="high")
    check_model("openai/qwen3", api_base=LOCAL, reasoning_effort="low")


def test_the_header_notes_say_what_differs_from_the_options() -> None:
    assert parameter_notes("gpt-4o", budgets=[2048], temperature=0.0) == []
    assert parameter_notes("gpt-4o", budgets=[4096, 32768], temperature=0.0) == [
        "output budget 32768 capped at gpt-4o's maximum of 16384 tokens"]
    assert parameter_notes("o3-mini", budgets=[2048], temperature=0.0,
                           reasoning_effort="high") == [
        "reasoning effort high", "temperature 0 not sent (o3-mini takes only its default)",
        "4096 more output tokens for reasoning"]
    assert parameter_notes("anthropic/claude-3-7-sonnet-20250219", budgets=[2048],
                           temperature=0.0, reasoning_effort="low")[1] == (
        "temperature 0 not sent (anthropic/claude-3-7-sonnet-20250219 takes only its default "
        "while it thinks)")
    assert parameter_notes("r2r/reference", budgets=[2048], temperature=0.0) == []


def test_the_cache_key_holds_the_effort_and_the_schema(ask: Ask) -> None:
    request = ask(max_tokens=10)
    plain = cache_key("o3-mini", request, "run", None)
    assert cache_key("o3-mini", request, "run", None, {}) == plain
    high = cache_key("o3-mini", request, "run", None, {"reasoning_effort": "high"})
    low = cache_key("o3-mini", request, "run", None, {"reasoning_effort": "low"})
    assert len({plain, high, low}) == 3
    assert cache_key("o3-mini", ask(max_tokens=10, answer_schema=SCHEMA), "run", None) != plain
    assert LiteLLMProvider("o3-mini", reasoning_effort="low").answer_parameters == {
        "reasoning_effort": "low"}
    assert LiteLLMProvider("o3-mini").answer_parameters == {}


class _OpenAIStandIn:
    """A loopback server speaking the OpenAI chat API: keeps each request body and answers with
    a reasoning model's usage (60 of 80 completion tokens spent reasoning)."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        bodies = self.bodies

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                bodies.append(body)
                answer = json.dumps({
                    "id": "chatcmpl-1", "object": "chat.completion", "created": 1,
                    "model": body["model"], "choices": [{"index": 0, "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "def f():\n    return 1"}}],
                    "usage": {"prompt_tokens": 20, "completion_tokens": 80, "total_tokens": 100,
                              "completion_tokens_details": {"reasoning_tokens": 60}},
                }).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1"


@pytest.fixture
def openai_stand_in(monkeypatch: pytest.MonkeyPatch) -> Iterator[_OpenAIStandIn]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
    stand_in = _OpenAIStandIn()
    thread = threading.Thread(target=stand_in.server.serve_forever, daemon=True)
    thread.start()
    yield stand_in
    stand_in.server.shutdown()
    stand_in.server.server_close()
    thread.join(timeout=10)


def test_what_reaches_the_wire_and_the_reasoning_tokens_that_come_back(
        openai_stand_in: _OpenAIStandIn, ask: Ask) -> None:
    """Through the real LiteLLM client: o3-mini is sent max_completion_tokens, its effort and
    no temperature; gpt-4o max_tokens and the temperature. The reasoning tokens are counted,
    and priced as the output tokens they are."""
    request = ask(max_tokens=500, temperature=0.0, seed=3, answer_schema=SCHEMA)
    reasoning = LiteLLMProvider("openai/o3-mini", api_base=openai_stand_in.url,
                                reasoning_effort="high").complete(request)
    chat = LiteLLMProvider("openai/gpt-4o", api_base=openai_stand_in.url).complete(request)
    first, second = (dict(body) for body in openai_stand_in.bodies)
    for body in (first, second):
        assert body.pop("messages") == [{"role": "user", "content": "write add"}]
    assert first == {"model": "o3-mini", "max_completion_tokens": 4596, "seed": 3,
                     "reasoning_effort": "high", "response_format": STRUCTURED}
    assert second == {"model": "gpt-4o", "max_tokens": 500, "temperature": 0.0, "seed": 3,
                      "response_format": STRUCTURED}
    assert (reasoning.completion_tokens, reasoning.reasoning_tokens) == (80, 60)
    # o3-mini: $1.10 / $4.40 per million tokens; the 60 reasoning tokens are among the 80
    assert reasoning.cost_usd == pytest.approx(20 * 1.1e-6 + 80 * 4.4e-6)
    assert chat.reasoning_tokens == 60 and chat.cost_usd == pytest.approx(20 * 2.5e-6 + 80 * 1e-5)


def test_a_scripted_reasoning_model_through_the_fake(fake_script: Install, ask: Ask) -> None:
    """The fake's model information stands in for LiteLLM's: a model that reasons takes an
    effort (it reaches the handler), its budget grows and is capped at its maximum, and its
    reasoning tokens and their cost are counted."""
    log = fake_script({
        "models": {"thinker": [{"responses": [{"text": "ok", "usage": {
            "prompt_tokens": 10, "completion_tokens": 50, "reasoning_tokens": 45}}]}],
                   "plain": [{"responses": [{"text": "ok"}]}]},
        "prices": {"thinker": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}},
        "info": {"thinker": {"max_output_tokens": 5000, "supports_reasoning": True,
                             "supports_response_schema": True}},
    })
    thinker = LiteLLMProvider("fake/thinker", reasoning_effort="high")
    thinker.validate()
    completion = thinker.complete(ask(max_tokens=2048, temperature=0.3, answer_schema=SCHEMA))
    assert (completion.completion_tokens, completion.reasoning_tokens) == (50, 45)
    assert completion.cost_usd == pytest.approx(10 * 1e-6 + 50 * 2e-6)
    thinker.complete(ask("again", max_tokens=512))
    plain = LiteLLMProvider("fake/plain")
    plain.complete(ask(max_tokens=2048, answer_schema=SCHEMA))
    big, small, unknown = read_fake_log(log)
    # 2048 + 4096 capped at 5000; 512 + 4096
    assert (big["max_tokens"], big["reasoning_effort"], big["temperature"]) == (5000, "high", 0.3)
    assert big["response_format"] == STRUCTURED and small["max_tokens"] == 4608
    assert (unknown["max_tokens"], unknown["reasoning_effort"]) == (2048, None)
    assert unknown["response_format"] == JSON_MODE
    with pytest.raises(ProviderConfigError, match=r"fake/plain does not take reasoning effort "
                       r"'low' through LiteLLM \(its model information does not say it "
                       r"reasons \(supports_reasoning\)\)"):
        check_model("fake/plain", reasoning_effort="low")
