"""Which model names the hub takes and which models it calls (no hub is served here; the
attacks over HTTP are in ``attacks/``)."""

from __future__ import annotations

import re

import pytest

from pytest_req2rank.hub import HubConfig
from pytest_req2rank.hub._errors import Refused
from pytest_req2rank.hub._model_policy import (
    ENDPOINT_PROVIDERS,
    HOSTED_PROVIDERS,
    LITELLM_PROVIDERS,
    allowed_providers,
    check_model_name,
    name_problem,
    why_not_called,
)
from pytest_req2rank.providers import ProviderConfigError, litellm_provider
from pytest_req2rank.providers.fake import reset_fake_state

CONFIG = HubConfig(database_url="sqlite://")


@pytest.mark.parametrize("model", [
    "gpt-4o", "anthropic/claude-sonnet-4-5", "r2r/reference", "fake/coder",
    "openrouter/meta-llama/llama-3.1-70b-instruct:free", "vertex_ai/claude-3-5-sonnet@20240620",
    "bedrock/arn:aws:bedrock:us-east-1:123456789012:provisioned-model/abc",
    "ft:gpt-4o-mini:acme:custom:abc123", "together_ai/meta-llama/Llama-3-70b-chat-hf",
])
def test_model_names_providers_spell_are_taken(model: str) -> None:
    assert str(check_model_name(model, CONFIG)) == model


@pytest.mark.parametrize(("model", "code", "why"), [
    ("gpt-4\u043e", "model_name", "U+043E CYRILLIC SMALL LETTER O at position 5 is not ASCII"),
    ("gpt-4o\u200b", "model_name", "U+200B ZERO WIDTH SPACE at position 6 is invisible"),
    ("gpt\u20104o", "model_name", "U+2010 HYPHEN at position 3 is not ASCII"),
    ("\uff47\uff50\uff54-4o", "model_name", "not in Unicode normal form NFKC (it reads as 'gpt-4o')"),
    ("gpt-4o\u202e", "model_name", "U+202E RIGHT-TO-LEFT OVERRIDE"),
    (" r2r/samples:../x", "model_name", "U+0020 SPACE at position 0"),
    ("gpt-4o\n", "model_name", "U+000A"),
    ("gpt-*", "model_name", "'*' is not a character of model names"),
    ("r2r/oracle", "model_name", "unknown built-in model"),
    ("r2r/samples:/dev/zero", "model_path", "names a file"),
    ("r2r/samples:../x", "model_path", "names a file"),
    ("/dev/zero", "model_path", "names a file"),
    ("openai/../../etc/passwd", "model_path", "names a file"),
    ("oobabooga/http://127.0.0.1:9/v1", "model_url", "carries a URL"),
    ("huggingface/https://attacker.example/generate", "model_url", "carries a URL"),
    ("openai/file:/etc/passwd", "model_url", "carries a URL"),
    ("openai//attacker.example/x", "model_url", "carries a URL"),
    ("ollama/llama3", "model_provider", ("ollama models are served at an address set by "
     "configuration")),
    ("hosted_vllm/qwen", "model_provider", "R2R_HUB_REVERIFY_PROVIDERS: hosted"),
    ("azure/my-deployment", "model_provider", "azure models"),
])
def test_model_names_that_reach_an_address_a_path_or_pass_for_another_are_refused(
        model: str, code: str, why: str) -> None:
    with pytest.raises(Refused) as refused:
        check_model_name(model, CONFIG)
    assert (refused.value.status, refused.value.code) == (422, code)
    assert why in refused.value.message and refused.value.message.startswith("run.model ")
    assert refused.value.message.isascii() and "\n" not in refused.value.message


def test_an_endpoint_provider_the_operator_allows_is_taken_and_called() -> None:
    config = HubConfig(database_url="sqlite://", reverify_providers="hosted,ollama")
    assert allowed_providers(config) == HOSTED_PROVIDERS | {"ollama"}
    assert str(check_model_name("ollama/llama3", config)) == "ollama/llama3"
    assert why_not_called("ollama/llama3", config) is None
    with pytest.raises(Refused, match="carries a URL"):  # never an address the string names
        check_model_name("oobabooga/http://127.0.0.1:9/v1",
                         HubConfig(database_url="sqlite://", reverify_providers="oobabooga"))


@pytest.mark.parametrize(("model", "config", "why"), [
    ("gpt-4o", {"reverify_providers": ""}, ("this hub does not call openai models "
     "(its R2R_HUB_REVERIFY_PROVIDERS: none)")),
    ("anthropic/claude-sonnet-4-5", {"reverify_providers": "openai"},
     "this hub does not call anthropic models"),
    ("acme/coder", {}, "the hub cannot call acme/coder: LiteLLM routes it to no provider"),
    ("openai/gpt-4o", {"reverify_models": "anthropic/*"},
     "this hub does not call openai/gpt-4o (its R2R_HUB_REVERIFY_MODELS: anthropic/*)"),
])
def test_the_hub_calls_only_the_providers_its_operator_allows(model: str, config: dict,
                                                               why: str) -> None:
    reason = why_not_called(model, HubConfig(database_url="sqlite://", **config),
                            resolve=litellm_provider)
    assert reason == why or (reason or "").startswith(why)


def test_built_in_models_are_always_called_and_answer_inside_the_replay() -> None:
    nothing = HubConfig(database_url="sqlite://", reverify_providers="")
    assert why_not_called("r2r/reference", nothing, resolve=litellm_provider) is None
    assert why_not_called("fake/coder", nothing, resolve=litellm_provider) is None


def test_the_provider_tables_are_litellms_and_refuse_no_model_it_serves(
        _modules_kept_across_runs: None) -> None:
    import litellm
    from litellm.llms.openai_like.json_loader import JSONProviderRegistry

    reset_fake_state()  # an earlier test of this process may have added the fake to the list
    providers = {str(getattr(p, "value", p)) for p in litellm.provider_list}
    # A LiteLLM with other providers: classify the new ones (hosted, endpoint, neither).
    assert LITELLM_PROVIDERS == providers | set(JSONProviderRegistry.list_providers())
    assert (HOSTED_PROVIDERS | ENDPOINT_PROVIDERS) <= LITELLM_PROVIDERS
    assert not HOSTED_PROVIDERS & ENDPOINT_PROVIDERS
    # Every model id LiteLLM knows (its price map; wildcard entries aside) passes the
    # name rules: the rules refuse no name a provider serves.
    names = [name for name in litellm.model_cost if "*" not in name]
    assert len(names) > 3000
    assert [name for name in names if name_problem(name) is not None] == []
    assert litellm_provider("gpt-4o") == "openai"
    assert litellm_provider("oobabooga/x") == "oobabooga"
    with pytest.raises(ProviderConfigError, match="routes model 'acme/coder' to no provider"):
        litellm_provider("acme/coder")


def test_the_limits_are_read_from_the_environment_and_checked() -> None:
    config = HubConfig.from_env({"R2R_HUB_REPLAY_MAX_TOKENS": "1024",
                                 "R2R_HUB_REPLAY_MAX_TEMPERATURE": "0.5",
                                 "R2R_HUB_REVERIFY_ATTEMPTS": "2", "R2R_HUB_REVERIFY_BACKOFF": "0",
                                 "R2R_HUB_REVERIFY_PROVIDERS": "openai,ollama"})
    assert (config.replay_max_tokens, config.replay_max_temperature, config.reverify_attempts,
            config.reverify_backoff_s) == (1024, 0.5, 2, 0)
    assert allowed_providers(config) == {"openai", "ollama"}
    defaults = HubConfig.from_env({})
    assert (defaults.replay_max_rounds, defaults.replay_max_items, defaults.replay_max_samples,
            defaults.replay_timeout_s, defaults.reverify_providers) == (1000, 100, 20, 900, "hosted")
    for variable, value in (("R2R_HUB_REPLAY_MAX_ROUNDS", "0"), ("R2R_HUB_REPLAY_TIMEOUT", "x")):
        with pytest.raises(ValueError, match=re.escape(f"{variable}={value!r}: give a")):
            HubConfig.from_env({variable: value})
