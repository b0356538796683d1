"""Self-judging: is the judge of the target's model family?"""

from __future__ import annotations

import pytest

from pytest_req2rank.judging import family, same_family


@pytest.mark.parametrize(
    ("target", "judge", "same"),
    [
        ("gpt-4o", "openai/gpt-4o-mini", True),
        ("azure/gpt-4.1", "openrouter/openai/o3-mini", True),
        ("o1-preview", "chatgpt-4o-latest", True),
        ("anthropic/claude-sonnet-4-5", "bedrock/us.anthropic.claude-3-haiku-20240307-v1:0", True),
        ("openrouter/anthropic/claude-3.5-sonnet", "vertex_ai/claude-opus-4", True),
        ("gemini/gemini-2.0-flash", "vertex_ai/gemini-1.5-pro", True),
        ("ollama_chat/llama3.1:8b", "hosted_vllm/meta-llama/Meta-Llama-3-70B-Instruct", True),
        ("ollama_chat/qwen2.5-coder:7b", "openrouter/qwen/qwq-32b", True),
        ("mistral/mistral-large-latest", "mistral/codestral-latest", True),
        ("deepseek/deepseek-chat", "openrouter/deepseek/deepseek-r1", True),
        ("gpt-4o", "anthropic/claude-sonnet-4-5", False),
        ("gemini/gemini-2.0-flash", "openai/gpt-4o", False),
        ("ollama_chat/llama3.1", "ollama_chat/qwen2.5", False),
        ("o3", "omni-moderation-latest", False),
        ("fake/coder", "fake/coder-v2", True),
        ("fake/coder", "fake/judge-a", False),
        ("azure/my-deployment", "azure/my-other", True),
        ("azure/my-deployment", "gpt-4o", False),
        ("r2r/reference", "r2r/static", False),
        ("fake/static", "r2r/static", False),
        ("gpt-4o", "r2r/static", False),
    ],
)
def test_same_family(target: str, judge: str, same: bool) -> None:
    assert same_family(target, judge) is same
    assert same_family(judge, target) is same


def test_family_names() -> None:
    assert family("bedrock/anthropic.claude-3-sonnet") == "claude"
    assert family("openai/o4-mini") == "openai"
    assert family("fake/coder") is None
