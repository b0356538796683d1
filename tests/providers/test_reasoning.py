"""A reasoning model's answer: its reasoning taken out, the final answer kept, where it enters."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_req2rank.providers import (
    CachedProvider,
    Completion,
    CompletionRequest,
    LiteLLMProvider,
)
from pytest_req2rank.providers._reasoning import split_reasoning
from pytest_req2rank.providers.fake import FakeScriptError, parse_script

DRAFT = "```python\ndef f():\n    return 0\n```"
FINAL = "```python\ndef f():\n    return 1\n```"


@pytest.mark.parametrize(("text", "reasoning"), [
    (f"<think>\nA first try:\n{DRAFT}\n</think>\n\n{FINAL}", f"A first try:\n{DRAFT}"),
    (f"<thinking>{DRAFT}</thinking>\n{FINAL}", DRAFT),
    (f"<reasoning>\n{DRAFT}\n</reasoning>\n{FINAL}", DRAFT),
    (f"<seed:think>{DRAFT}</seed:think>{FINAL}", DRAFT),
    (f"◁think▷{DRAFT}◁/think▷{FINAL}", DRAFT),
    (f"[THINK]{DRAFT}[/THINK]{FINAL}", DRAFT),
    (f"<|START_THINKING|>{DRAFT}<|END_THINKING|><|START_RESPONSE|>{FINAL}<|END_RESPONSE|>", DRAFT),
    ((f"<|begin_of_thought|>{DRAFT}<|end_of_thought|>\n\n<|begin_of_solution|>\n{FINAL}\n"
      "<|end_of_solution|>"), DRAFT),
    (f"<think>\n{DRAFT}\n</think>\n<answer>\n{FINAL}\n</answer>", DRAFT),
    # DeepSeek-R1 whose chat template holds the opening tag: everything before </think>
    (f"Let me think.\n{DRAFT}\n</think>\n\n{FINAL}", f"Let me think.\n{DRAFT}"),
    # gpt-oss harmony channels rendered raw, and with the special tokens dropped
    ((f"<|channel|>analysis<|message|>{DRAFT}<|end|><|start|>assistant<|channel|>final"
      f"<|message|>{FINAL}<|return|>"), DRAFT),
    (f"analysis{DRAFT}assistantfinal{FINAL}", DRAFT),
    (f"Here is my thought process:\n{DRAFT}\nHere is my response:\n{FINAL}", DRAFT),
])
def test_the_final_answer_is_what_follows_the_reasoning(text: str, reasoning: str) -> None:
    split = split_reasoning(text)
    assert split.answer == FINAL
    assert split.reasoning == reasoning and not split.unfinished


def test_several_blocks_and_an_empty_one_are_all_reasoning() -> None:
    split = split_reasoning(f"<think>\n\n</think>\n\nfirst <think>{DRAFT}</think> second<|im_end|>")
    assert split.answer == "first  second" and split.reasoning == DRAFT


@pytest.mark.parametrize("text", [
    f"<think>\nLet me start.\n{DRAFT}\nNow the edge cas",
    f"<|channel|>analysis<|message|>Let me start.\n{DRAFT}\nNow",
    "Here's my thought process: it is long",
])
def test_reasoning_cut_before_its_end_leaves_no_answer(text: str) -> None:
    split = split_reasoning(text)
    assert split.answer == "" and split.unfinished and split.reasoning


@pytest.mark.parametrize("text", [
    'def strip_tags(s):\n    return s.replace("<think>", "").replace("</think>", "")\n',
    "    return a + b\n",
    "```python\nprint('[THINK]')\n```",
    "Analysis: the answer is below.\n" + FINAL,
])
def test_an_answer_without_reasoning_is_left_exactly_as_it_is(text: str) -> None:
    assert split_reasoning(text).answer == text
    assert split_reasoning(text).reasoning == ""


def test_a_completion_holds_the_final_answer_and_keeps_the_rest() -> None:
    raw = f"<think>{DRAFT}</think>\n{FINAL}"
    completion = Completion(text=raw, model="m", reasoning="returned apart")
    assert completion.text == FINAL and completion.raw_text == raw
    assert completion.reasoning == f"returned apart\n\n{DRAFT}"
    assert not completion.cut
    plain = Completion(text=FINAL, model="m")
    assert plain.text == FINAL and plain.raw_text is None and plain.reasoning == ""
    cut = Completion(text="<think>never ends", model="m")
    assert cut.text == "" and cut.reasoning_unfinished and cut.cut
    assert Completion(text=FINAL, model="m", raw={"finish_reason": "length"}).cut


class _Memory:
    def __init__(self) -> None:
        self.data: dict[str, dict[str, Any]] = {}

    def cache_get(self, key: str) -> dict[str, Any] | None:
        return self.data.get(key)

    def cache_put(self, key: str, model: str, completion: dict[str, Any]) -> None:
        self.data[key] = completion


def test_the_fake_model_scripts_a_cut_answer_and_reasoning_returned_apart(
        fake_script: Callable[[dict[str, Any]], Path],
        ask: Callable[..., CompletionRequest]) -> None:
    fake_script({"models": {"thinker": [{"responses": [{
        "text": f"<think>{DRAFT}</think>\n{FINAL}\n\nUsage:\n```python\nprint(f(",
        "reasoning": "parsed by the server", "finish_reason": "length"}]}]}})
    memory = _Memory()
    provider = CachedProvider(LiteLLMProvider("fake/thinker"), memory, namespace="run")
    completion = provider.complete(ask("write f"))
    assert completion.text.startswith(FINAL) and DRAFT not in completion.text
    assert completion.reasoning == f"parsed by the server\n\n{DRAFT}"
    assert completion.raw["finish_reason"] == "length" and completion.cut
    again = provider.complete(ask("write f"))  # read back from the cache: split once only
    assert again.attempts == 0
    assert (again.text, again.reasoning, again.raw_text) == (
        completion.text, completion.reasoning, completion.raw_text)


def test_a_finish_reason_belongs_to_a_text_answer() -> None:
    with pytest.raises(FakeScriptError, match="only apply to a \"text\" response"):
        parse_script({"models": {"m": [{"responses": [
            {"error": "rate_limit", "finish_reason": "length"}]}]}})
