"""The built-in offline models: r2r/reference and r2r/samples:PATH, and model-string resolution."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_req2rank.models import Task
from pytest_req2rank.providers import (
    CachedProvider,
    CallGate,
    Completion,
    CompletionRequest,
    LiteLLMProvider,
    Provider,
    ProviderConfigError,
    ProviderError,
    ReferenceProvider,
    SamplesProvider,
    resolve_provider,
)
from pytest_req2rank.providers._cache import cache_key
from pytest_req2rank.providers._resolve import load_offline

TaskFactory = Callable[..., Task]
Ask = Callable[..., CompletionRequest]


def write_lines(path: Path, *records: Any) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def test_reference_answers_with_the_fenced_reference(make_task: TaskFactory, ask: Ask) -> None:
    task = make_task()
    provider = resolve_provider("r2r/reference")
    completion = provider.complete(ask(task=task))
    assert isinstance(provider, ReferenceProvider) and provider.offline
    assert completion.text == "```python\ndef add(a, b):\n    return a + b\n```\n"
    assert completion.model == "r2r/reference" and completion.attempts == 1
    assert (completion.prompt_tokens, completion.completion_tokens, completion.cost_usd) == (None,) * 3


def test_reference_containing_a_fence_is_returned_unwrapped(make_task: TaskFactory, ask: Ask) -> None:
    reference = 'DOC = """```python\\nx\\n```"""\n\ndef add(a, b):\n    return a + b\n'
    completion = ReferenceProvider().complete(ask(task=make_task(reference=reference)))
    assert completion.text == reference


def test_offline_models_need_a_task(tmp_path: Path, ask: Ask) -> None:
    samples = write_lines(tmp_path / "s.jsonl", {"task_id": "t1", "completion": "x"})
    for model in ("r2r/reference", f"r2r/samples:{samples}"):
        with pytest.raises(ProviderError, match="carries no task") as info:
            resolve_provider(model).complete(ask())
        assert info.value.kind == "api_error"


def test_samples_answer_with_the_stored_completion(
    tmp_path: Path, make_task: TaskFactory, ask: Ask
) -> None:
    path = write_lines(
        tmp_path / "samples.jsonl",
        {"task_id": "t1", "completion": "    return a + b\n"},
        "",
        {"task_id": "t1", "completion": "    return 0\n"},
        {"task_id": "t2", "solution": "def add(a, b):\n    return b + a\n", "extra": 1},
        {"task_id": 3, "completion": "print(3)"},
    )
    provider = load_offline(f"r2r/samples:{path}")
    assert isinstance(provider, SamplesProvider) and provider.offline
    assert provider.model == f"r2r/samples:{path}"
    first = provider.complete(ask(task=make_task("t1")))
    assert first.text == "    return a + b\n"
    assert (first.prompt_tokens, first.completion_tokens, first.cost_usd) == (None,) * 3
    assert provider.complete(ask(task=make_task("t2"))).text == "def add(a, b):\n    return b + a\n"
    assert provider.complete(ask(task=make_task("3"))).text == "print(3)"


def test_completion_wins_over_solution(tmp_path: Path, make_task: TaskFactory, ask: Ask) -> None:
    path = write_lines(tmp_path / "s.jsonl", {"task_id": "t1", "solution": "A", "completion": "B"})
    assert SamplesProvider(path).complete(ask(task=make_task())).text == "B"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"task_id": "t2", "completion": ', r"s\.jsonl:2:33: invalid JSON: .*; each line must be"),
        ('["t2", "x"]', r"s\.jsonl:2:1: expected a JSON object, got list; each line must be"),
        ('{"completion": "x"}', r's\.jsonl:2:1: "task_id" missing; add the id of the task'),
        ('{"task_id": "", "completion": "x"}', r's\.jsonl:2:13: "task_id" must be a non-empty string'),
        ('{"task_id": "t2"}', r's\.jsonl:2:1: missing "completion" \(or "solution"\) for task \'t2\'; add'),
        ('{"task_id": "t2", "completion": 5}', r's\.jsonl:2:33: "completion" must be a string, got int'),
        ('{"task_id": "t2", "solution": [1]}', r's\.jsonl:2:31: "solution" must be a string, got list'),
    ],
)
def test_malformed_samples_name_file_line_and_column(tmp_path: Path, line: str, message: str) -> None:
    path = write_lines(tmp_path / "s.jsonl", {"task_id": "t1", "completion": "x"}, line)
    with pytest.raises(ProviderConfigError, match=message):
        load_offline(f"r2r/samples:{path}")


def test_missing_or_empty_samples_file(tmp_path: Path) -> None:
    with pytest.raises(ProviderConfigError, match=r"nope\.jsonl: samples file not found; pass r2r/samples:PATH"):
        load_offline(f"r2r/samples:{tmp_path / 'nope.jsonl'}")
    empty = write_lines(tmp_path / "empty.jsonl", "", "  ")
    with pytest.raises(ProviderConfigError, match=r"empty\.jsonl: the samples file holds no samples"):
        load_offline(f"r2r/samples:{empty}")


def test_a_task_without_a_sample_is_an_api_error(
    tmp_path: Path, make_task: TaskFactory, ask: Ask
) -> None:
    path = write_lines(tmp_path / "s.jsonl", {"task_id": "t1", "completion": "x"})
    with pytest.raises(ProviderError) as info:
        SamplesProvider(path).complete(ask(task=make_task("HumanEval/7")))
    assert info.value.kind == "api_error" and info.value.attempts == 1
    assert "has no completion for task 'HumanEval/7'" in info.value.message
    assert '{"task_id": "HumanEval/7", "completion": ...}' in info.value.message


def test_check_covers_names_the_missing_tasks(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", {"task_id": "a", "completion": "x"},
                       {"task_id": "b", "completion": "x"})
    provider = SamplesProvider(path)
    provider.check_covers(["a", "b", "a"])
    planned = ["a", "c1", "b", "c2", "c3", "c4", "c5", "c6"]
    with pytest.raises(ProviderConfigError) as info:
        provider.check_covers(planned)
    message = str(info.value)
    assert message.startswith(f"6 of the 8 planned tasks have no completion in {path}: "
                              "c1, c2, c3, c4, c5, …; add a")
    assert "c6" not in message
    with pytest.raises(ProviderConfigError, match="1 of the 2 planned tasks .*: z;"):
        load_offline(f"r2r/samples:{path}", task_ids=["a", "z"])


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("r2r/oracle",
         ("unknown built-in model 'r2r/oracle'; built-ins are r2r/reference, r2r/samples:PATH "
         "and r2r/degraded:P")),
        ("r2r/samples:", "r2r/samples needs a path"),
        ("r2r/reference2", "unknown built-in model"),
        ("", "must not be empty"),
        ("gpt 4o", "must not contain whitespace"),
    ],
)
def test_bad_model_strings(model: str, message: str) -> None:
    with pytest.raises(ProviderConfigError, match=message):
        resolve_provider(model)


@pytest.mark.parametrize(
    "model",
    ["gpt-4o", "anthropic/claude-sonnet-4-5", "gemini/gemini-2.0-flash", "azure/my-deployment",
     "openai/qwen2.5-coder", "ollama_chat/llama3.1", "hosted_vllm/qwen", "fake/coder"],
)
def test_every_other_model_string_goes_to_litellm(model: str) -> None:
    provider = resolve_provider(model, api_base="http://127.0.0.1:8000/v1", gate=CallGate(3))
    assert isinstance(provider, LiteLLMProvider) and not provider.offline
    assert (provider.model, provider.api_base, provider.concurrency) == (
        model, "http://127.0.0.1:8000/v1", 3)


def test_concurrency_must_be_positive() -> None:
    with pytest.raises(ProviderConfigError, match="concurrency must be at least 1, got 0"):
        resolve_provider("gpt-4o", gate=CallGate(0))


def test_samples_of_a_task_are_its_completions_in_file_order(
    tmp_path: Path, make_task: TaskFactory, ask: Ask
) -> None:
    path = write_lines(tmp_path / "s.jsonl", {"task_id": "t1", "completion": "A"},
                       {"task_id": "t2", "completion": "X"}, {"task_id": "t1", "completion": "B"},
                       {"task_id": "t1", "completion": "C"})
    provider = SamplesProvider(path)
    assert provider.counts() == {"t1": 3, "t2": 1}
    task = make_task("t1")
    assert [provider.complete(ask(task=task, sample=k)).text for k in range(3)] == ["A", "B", "C"]
    with pytest.raises(ProviderError) as info:
        provider.complete(ask(task=make_task("t2"), sample=1))
    assert "has no sample 1 (it holds 1) for task 't2'" in info.value.message


def test_the_cache_key_tells_samples_apart(make_task: TaskFactory, ask: Ask) -> None:
    task = make_task()
    zero = ask(task=task, seed=7)
    assert cache_key("m", zero, "run", None) == cache_key("m", ask(task=task, seed=7), "run", None)
    keys = {cache_key("m", ask(task=task, seed=7, sample=k), "run", None) for k in range(4)}
    assert len(keys) == 4


def test_a_sample_is_never_served_another_sample_s_cached_answer(
    make_task: TaskFactory, ask: Ask
) -> None:
    class Memory(dict):  # type: ignore[type-arg]
        def cache_get(self, key: str) -> dict[str, Any] | None:
            return self.get(key)

        def cache_put(self, key: str, model: str, completion: dict[str, Any]) -> None:
            self[key] = completion

    class Counter(Provider):
        model = "counter"

        def __init__(self) -> None:
            self.calls = 0

        def complete(self, request: CompletionRequest) -> Completion:
            self.calls += 1
            return Completion(text=f"answer {self.calls}", model=self.model)

    inner, cache = Counter(), Memory()
    cached = CachedProvider(inner, cache, namespace="run")
    task = make_task()
    # the same messages, seed and task: only the sample index differs
    first = [cached.complete(ask(task=task, seed=1, sample=k)).text for k in range(3)]
    again = [cached.complete(ask(task=task, seed=1, sample=k)) for k in range(3)]
    assert first == ["answer 1", "answer 2", "answer 3"] and inner.calls == 3
    assert [c.text for c in again] == first and all(c.attempts == 0 for c in again)
