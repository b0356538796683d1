"""The routing check read from LiteLLM's files refuses only what LiteLLM itself refuses.

``surely_unroutable`` answers before litellm is imported; these tests hold it to
``litellm.get_llm_provider`` on every provider prefix, every priced model name and their
near misses, so that a LiteLLM upgrade that routes more (or reads its data elsewhere)
fails here rather than turning a model LiteLLM would serve into a usage error.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

from pytest_req2rank.models import FAKE_PREFIX
from pytest_req2rank.providers import LiteLLMProvider, ProviderConfigError, check_model
from pytest_req2rank.providers._env import import_litellm
from pytest_req2rank.providers._routing import routing_data, surely_unroutable, unroutable_message

# What a user mistypes: unknown providers, unknown bare names, near misses of real names.
TYPOS = ["nosuch/x", "nosuchprovider/x", "opnai/gpt-4o", "antropic/claude-3-5-sonnet",
         "gpt-4o-mini-typo", "gpt-99", "gpt4o", "gemini-9-ultra", "my-model",
         "模型/x", "Nosuch/X", "a/b/c"]
# Shapes the router treats specially: fine-tuned ids, Replicate versions, wildcards, rules.
ODD = ["", " ", "/", "//", "/gpt-4o", "gpt-4o/", " openai/gpt-4o", "gpt-4o ", "*", "**",
       "ft:gpt-4o:org::abc", "ft:gpt-3.5-turbo", "owner/model:" + "a" * 64, "x:" + "b" * 70,
       "claude-newfamily-9", "claude-opus-9-1-20300101", "anthropic.claude-x",
       "us.anthropic.claude-x", "gpt-image-9", "amazon_nova-lite", "bytez/x", "llama2",
       "maritalk", "petals-team/StableBeluga2", "dall-e-3", "sora-2", "qwen3", "deepseek-chat",
       "OPENAI/gpt-4o", "GPT-4O", "mistral-large-latest", "azure", "openai", "openai/", "fake"]


@pytest.fixture(scope="module")
def litellm() -> ModuleType:
    return import_litellm()


@pytest.fixture(autouse=True)
def _default_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("USE_LITELLM_PROXY", "LITELLM_LOCAL_MODEL_COST_MAP", "LITELLM_MODE"):
        monkeypatch.delenv(name, raising=False)
    yield


def _routes(litellm: ModuleType, model: str) -> bool:
    try:
        litellm.get_llm_provider(model=model)
    except litellm.BadRequestError:  # how get_llm_provider refuses, whatever the cause
        return False
    return True


def _providers(litellm: ModuleType) -> list[str]:
    return sorted(str(getattr(p, "value", p)) for p in litellm.provider_list
                  if str(getattr(p, "value", p)) != FAKE_PREFIX.rstrip("/"))


def _priced_names(litellm: ModuleType) -> list[str]:
    # Other tests register fake/ models' prices in this process; they are not LiteLLM's own.
    return sorted(name for name in litellm.model_cost if not name.startswith(FAKE_PREFIX))


def _sample(litellm: ModuleType) -> list[str]:
    sample = TYPOS + ODD
    for provider in _providers(litellm):
        sample += [f"{provider}/x", provider, f"{provider}/", f"{provider.upper()}/x",
                   f"{provider}x/y"]
    for name in _priced_names(litellm):
        sample += [name, name.upper(), f"nosuch/{name}", f"{name}-typo", name.split("/")[-1]]
    return sample


def test_reads_the_providers_and_names_litellm_routes_by(litellm: ModuleType) -> None:
    from litellm.llms.openai_like import json_loader

    registry: Any = json_loader.JSONProviderRegistry  # the providers get_llm_provider asks first
    registry.load()
    data = routing_data()
    assert data is not None
    assert data.providers == set(_providers(litellm)) | set(registry._providers)
    assert set(_priced_names(litellm)) <= data.names
    assert {"gpt-image", "amazon_nova"} <= set(data.prefixes)
    assert data.rules, "the cost map's routing rules were not found"


def test_every_fast_refusal_is_litellms_own(litellm: ModuleType) -> None:
    sample = _sample(litellm)
    refused_fast = [model for model in sample if surely_unroutable(model)]
    routed_anyway = [model for model in refused_fast if _routes(litellm, model)]
    assert routed_anyway == []
    assert len(refused_fast) > len(sample) // 4, "the fast check decides almost nothing"


@pytest.mark.parametrize("model", TYPOS)
def test_a_mistyped_model_is_refused_without_litellm(litellm: ModuleType, model: str) -> None:
    assert surely_unroutable(model)
    assert not _routes(litellm, model)


def test_every_provider_prefix_is_left_to_litellm(litellm: ModuleType) -> None:
    prefixed = [f"{provider}/{name}" for provider in _providers(litellm)
                for name in ("x", "gpt-4o", "")]
    assert [model for model in prefixed if surely_unroutable(model)] == []


@pytest.mark.parametrize("setting", [
    {"USE_LITELLM_PROXY": "True"},
    {"LITELLM_LOCAL_MODEL_COST_MAP": "False"},
    {"LITELLM_MODE": "DEV"},
])
def test_a_setting_that_changes_what_litellm_reads_leaves_it_to_litellm(
        monkeypatch: pytest.MonkeyPatch, setting: dict[str, str]) -> None:
    assert surely_unroutable("nosuch/x")
    for name, value in setting.items():
        monkeypatch.setenv(name, value)
    assert not surely_unroutable("nosuch/x")


def test_an_api_base_leaves_it_to_litellm() -> None:
    # LiteLLM recognises some servers by their address.
    assert not surely_unroutable("nosuch/x", api_base="https://api.groq.com/openai/v1")


def test_check_model_refuses_with_litellms_message() -> None:
    expected = unroutable_message("nosuch/x")
    with pytest.raises(ProviderConfigError) as fast:
        check_model("nosuch/x")
    with pytest.raises(ProviderConfigError) as slow:
        LiteLLMProvider("nosuch/x").validate()
    assert str(fast.value) == str(slow.value) == expected
    assert expected.startswith("LiteLLM cannot route model 'nosuch/x'; use a LiteLLM model string")


def test_a_name_only_litellm_can_judge_is_still_refused_by_it() -> None:
    assert not surely_unroutable("qwen3")  # a string LiteLLM's source mentions
    with pytest.raises(ProviderConfigError, match="LiteLLM cannot route model 'qwen3'"):
        check_model("qwen3")


def test_an_unknown_model_is_refused_before_litellm_is_imported(
        run_python: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    result = run_python("""
        import sys
        from pytest_req2rank.providers import ProviderConfigError, check_model
        try:
            check_model("nosuch/x")
        except ProviderConfigError as exc:
            print(exc)
        print(sorted(name for name in sys.modules if name.split(".")[0] == "litellm"))
    """)
    message, imported = result.stdout.splitlines()
    assert message == unroutable_message("nosuch/x")
    assert imported == "[]"
