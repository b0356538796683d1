"""The scripted fake provider itself: script format, rules, consumption, log, litellm globals."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_req2rank.providers import CompletionRequest, LiteLLMProvider, ProviderError
from pytest_req2rank.providers._env import import_litellm
from pytest_req2rank.providers.fake import (
    LOG_ENV,
    SCRIPT_ENV,
    FakeScriptError,
    fake_calls,
    parse_script,
    read_fake_log,
    register_fake_provider,
    reset_fake_state,
    set_fake_script,
    write_fake_script,
)

Install = Callable[[dict[str, Any]], Path]
MakeProvider = Callable[..., LiteLLMProvider]
Ask = Callable[..., CompletionRequest]
RunPython = Callable[..., subprocess.CompletedProcess[str]]


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ({}, r"script: models: Field required"),
        ({"models": {"m": [{"responses": []}]}}, r"models\.m\.0\.responses: .*at least 1"),
        ({"models": {"m": [{"responses": [{"text": "a", "error": "auth"}]}]}},
         r'models\.m\.0\.responses\.0: .*exactly one of "text", "embedding" or "error"'),
        ({"models": {"m": [{"responses": [{"error": "meltdown"}]}]}},
         r"models\.m\.0\.responses\.0\.error: Input should be 'rate_limit', 'timeout'"),
        ({"models": {"m": [{"match": "(", "responses": [{"text": "a"}]}]}},
         r"models\.m\.0\.match: .*not a valid regular expression"),
        ({"models": {"m": [{"responses": [{"text": "a", "retry_after": 2}]}]}},
         r'"retry_after" only applies to an "error" response'),
        ({"models": {}, "prices": {"m": {"input_cost_per_token": -1, "output_cost_per_token": 0}}},
         r"prices\.m\.input_cost_per_token: Input should be greater than or equal to 0"),
        ({"models": {}, "extra": 1}, r"extra: Extra inputs are not permitted"),
    ],
)
def test_bad_scripts_say_where(script: dict[str, Any], message: str) -> None:
    with pytest.raises(FakeScriptError, match=message):
        parse_script(script)


def test_write_fake_script_returns_the_environment(tmp_path: Path) -> None:
    env = write_fake_script(tmp_path / "s.json", {"models": {"fake/m": [{"responses": [{"text": "hi"}]}]}})
    assert env == {SCRIPT_ENV: str(tmp_path / "s.json"), LOG_ENV: str(tmp_path / "s.calls.jsonl")}
    assert json.loads((tmp_path / "s.json").read_text()) == {
        "models": {"m": [{"responses": [{"text": "hi"}]}]}}
    custom = write_fake_script(tmp_path / "t.json", {"models": {}}, log_path=tmp_path / "calls.log")
    assert custom[LOG_ENV] == str(tmp_path / "calls.log")
    with pytest.raises(FakeScriptError):
        write_fake_script(tmp_path / "bad.json", {"models": {"m": []}, "oops": 1})
    assert not (tmp_path / "bad.json").exists()


def test_first_matching_rule_answers_and_its_last_response_repeats(
    fake_script: Install, make_provider: MakeProvider, ask: Ask
) -> None:
    fake_script({"models": {"coder": [
        {"match": r"fizz\w+", "responses": [{"text": "fizz 1"}, {"text": "fizz 2"}]},
        {"match": "fizz", "responses": [{"text": "never: the rule above matches first"}]},
        {"responses": [{"text": "fallback"}]},
    ]}})
    provider = make_provider()
    texts = [provider.complete(ask(q)).text for q in ("fizzbuzz", "hello", "fizzbuzz", "fizzbuzz")]
    assert texts == ["fizz 1", "fallback", "fizz 2", "fizz 2"]
    assert [(c["rule"], c["step"]) for c in fake_calls()] == [(0, 0), (2, 0), (0, 1), (0, 1)]


def test_rules_match_the_last_user_message(fake_script: Install, make_provider: MakeProvider) -> None:
    from pytest_req2rank.providers import Message

    fake_script({"models": {"coder": [{"match": "^second$", "responses": [{"text": "yes"}]},
                                      {"responses": [{"text": "no"}]}]}})
    request = CompletionRequest(messages=(
        Message(role="system", content="second"), Message(role="user", content="first"),
        Message(role="assistant", content="second"), Message(role="user", content="second"),
    ))
    assert make_provider().complete(request).text == "yes"


def test_no_matching_rule_is_a_clear_api_error(
    fake_script: Install, make_provider: MakeProvider, ask: Ask
) -> None:
    fake_script({"models": {"coder": [{"match": "only this", "responses": [{"text": "x"}]}]}})
    with pytest.raises(ProviderError, match="no rule of fake/coder matches the last user message"):
        make_provider().complete(ask("something else"))
    assert fake_calls()[0]["outcome"] == "script_error"


def test_reset_starts_the_responses_over_and_clears_the_calls(
    fake_script: Install, make_provider: MakeProvider, ask: Ask
) -> None:
    fake_script({"models": {"coder": [{"responses": [{"text": "one"}, {"text": "two"}]}]}})
    assert make_provider().complete(ask()).text == "one"
    reset_fake_state()
    assert fake_calls() == []
    assert make_provider().complete(ask()).text == "one"


def test_programmatic_script_overrides_the_file(
    fake_script: Install, make_provider: MakeProvider, ask: Ask
) -> None:
    log = fake_script({"models": {"coder": [{"responses": [{"text": "from file"}]}]}})
    set_fake_script({"models": {"coder": [{"responses": [{"text": "in memory"}]}]}})
    assert make_provider().complete(ask()).text == "in memory"
    set_fake_script(None)
    assert make_provider().complete(ask()).text == "from file"
    assert [c["outcome"] for c in read_fake_log(log)] == ["text", "text"]


def test_an_edited_script_file_is_picked_up(
    fake_script: Install, make_provider: MakeProvider, ask: Ask
) -> None:
    fake_script({"models": {"coder": [{"responses": [{"text": "before"}]}]}})
    assert make_provider().complete(ask()).text == "before"
    fake_script({"models": {"coder": [{"responses": [{"text": "after, and longer"}]}]}})
    assert make_provider().complete(ask()).text == "after, and longer"


def test_direct_litellm_calls_sync_and_async(fake_script: Install) -> None:
    import asyncio

    litellm = import_litellm()  # offline: a bare first import fetches the price map

    fake_script({"models": {"coder": [{"responses": [{"text": "direct", "usage": {
        "prompt_tokens": 3, "completion_tokens": 4}}]}]}})
    register_fake_provider()
    messages = [{"role": "user", "content": "hi"}]
    sync = litellm.completion(model="fake/coder", messages=messages, max_tokens=5)
    assert sync.choices[0].message.content == "direct" and sync.usage.completion_tokens == 4
    result = asyncio.run(litellm.acompletion(model="fake/coder", messages=messages))
    assert result.choices[0].message.content == "direct"
    with pytest.raises(litellm.exceptions.RateLimitError):
        set_fake_script({"models": {"coder": [{"responses": [{"error": "rate_limit"}]}]}})
        litellm.completion(model="fake/coder", messages=messages)
    assert [c["max_tokens"] for c in fake_calls()] == [5, None, None]


def test_reset_restores_litellm_globals(fake_script: Install, make_provider: MakeProvider,
                                        ask: Ask) -> None:
    litellm = import_litellm()
    reset_fake_state()
    before_map = list(litellm.custom_provider_map)
    before_providers = list(litellm.provider_list)
    fake_script({"models": {"coder": [{"responses": [{"text": "x", "usage": {
        "prompt_tokens": 1, "completion_tokens": 1}}]}]},
        "prices": {"coder": {"input_cost_per_token": 1, "output_cost_per_token": 1}}})
    assert make_provider().complete(ask()).cost_usd == 2.0
    assert "fake/coder" in litellm.model_cost
    assert any(item["provider"] == "fake" for item in litellm.custom_provider_map)
    reset_fake_state()
    assert "fake/coder" not in litellm.model_cost
    assert litellm.custom_provider_map == before_map
    assert list(litellm.provider_list) == before_providers
    assert make_provider().complete(ask()).text == "x"  # the adapter registers it again


def test_call_log_across_processes(
    fake_script: Install, run_python: RunPython, make_provider: MakeProvider, ask: Ask
) -> None:
    log = fake_script({"models": {"coder": [
        {"match": "child", "responses": [{"error": "rate_limit"}, {"text": "child ok"}]},
        {"responses": [{"text": "parent ok"}]},
    ]}})
    child = run_python('''
        import json
        from pytest_req2rank.providers import CompletionRequest, LiteLLMProvider, Message

        async def no_sleep(seconds):
            print("slept", seconds)

        provider = LiteLLMProvider("fake/coder", sleep=no_sleep)
        request = CompletionRequest(messages=(Message(role="user", content="child"),), seed=3)
        completion = provider.complete(request)
        print(json.dumps([completion.text, completion.attempts]))
    ''')
    assert child.stdout.splitlines() == ["slept 1.0", '["child ok", 2]']
    assert make_provider().complete(ask("parent")).text == "parent ok"
    calls = read_fake_log(log)
    assert [(c["outcome"], c["seed"]) for c in calls] == [("rate_limit", 3), ("text", 3), ("text", None)]
    assert calls[0]["pid"] == calls[1]["pid"] != os.getpid() == calls[2]["pid"]
    assert len(fake_calls()) == 1
