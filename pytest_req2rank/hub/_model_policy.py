"""Which model names the hub takes, and which models it calls.

A submission's model string, and each LLM judge's it names, is checked before anything reads
it (:func:`check_model_names`): parsed with the package's own :class:`~pytest_req2rank.models.ModelSpec`, and refused when
it is not plain ASCII in Unicode normal form NFKC (invisible, control and look-alike
characters), carries a URL or a path (``r2r/samples:`` included), or names a provider that
is served at an address set by configuration (:data:`ENDPOINT_PROVIDERS`) which the
operator did not allow.

Why ASCII rather than a confusables check: NFKC folds compatibility forms (``ｇｐｔ``) but
not look-alikes from other scripts (a Cyrillic ``о`` stays itself), and Unicode's
confusables table is not in the standard library; every one of LiteLLM's 3,821 model ids
(1.101.6) is ASCII from ``[A-Za-z0-9._-/:@+]``, so the rule refuses no model anyone serves.

Re-verification calls a model only when :func:`why_not_called` finds no reason not to: the
built-in offline models (``r2r/reference``, the scripted ``fake/…``) always, and LiteLLM
models of the providers the operator allows (``R2R_HUB_REVERIFY_PROVIDERS``) that match
``R2R_HUB_REVERIFY_MODELS``.
"""

from __future__ import annotations

import fnmatch
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence

from ..models import STATIC_JUDGE, ModelSpec
from ._config import HubConfig
from ._errors import Refused

HOSTED_PROVIDERS = frozenset({
    "openai", "text-completion-openai", "anthropic", "anthropic_text", "gemini", "vertex_ai",
    "mistral", "codestral", "groq", "deepseek", "together_ai", "fireworks_ai", "openrouter",
    "xai", "cohere", "cohere_chat", "perplexity", "deepinfra", "cerebras", "bedrock",
    "sambanova", "nvidia_nim", "moonshot", "dashscope", "nebius", "novita", "hyperbolic",
    "featherless_ai", "friendliai", "lambda_ai", "meta_llama", "ai21_chat", "replicate",
})
"""LiteLLM providers with a fixed public address (their own API), what ``hosted`` in
``R2R_HUB_REVERIFY_PROVIDERS`` stands for: the hub calls them with the keys in its own
environment; one without a key fails, and the run stays unverified."""

ENDPOINT_PROVIDERS = frozenset({
    "oobabooga", "ollama", "ollama_chat", "hosted_vllm", "vllm", "llamafile", "lm_studio",
    "lemonade", "docker_model_runner", "xinference", "triton", "openai_like", "custom_openai",
    "custom", "litellm_proxy", "langgraph", "langflow", "a2a", "a2a_agent", "ragflow",
    "petals", "infinity", "nvidia_riva", "azure", "azure_text", "azure_ai", "databricks",
    "watsonx", "watsonx_text",
})
"""LiteLLM (1.101.6) providers without an address of their own: it comes from ``api_base``
(or its environment variable), from a default on the caller's own machine
(``ollama``: ``localhost:11434``, ``llamafile``, ``lemonade``, ``xinference``, ...), or,
for ``oobabooga`` (and ``huggingface``), from the model string when it is an http(s) URL.
Refused at submission unless the operator allows the provider."""

LITELLM_PROVIDERS = frozenset({
    "a2a", "a2a_agent", "abliteration", "ai21", "ai21_chat", "aihubmix", "aiml",
    "aiohttp_openai", "amazon_nova", "anthropic", "anthropic_text", "apertis", "assemblyai",
    "auto_router", "aws_polly", "azure", "azure_ai", "azure_text", "baseten", "bedrock",
    "bedrock_mantle", "black_forest_labs", "bytez", "cerebras", "charity_engine", "chatgpt",
    "chutes", "clarifai", "cloudflare", "codestral", "cognition", "cohere", "cohere_chat",
    "cometapi", "compactifai", "crusoe", "cursor", "custom", "custom_openai", "darkbloom",
    "dashscope", "databricks", "datarobot", "deepgram", "deepinfra", "deepseek",
    "docker_model_runner", "dotprompt", "elevenlabs", "empiriolabs", "empower", "fal_ai",
    "featherless_ai", "fireworks_ai", "friendliai", "galadriel", "gdc", "gemini",
    "gigachat", "github", "github_copilot", "gmi", "gradient_ai", "groq", "helicone",
    "heroku", "hosted_vllm", "huggingface", "humanloop", "hyperbolic", "inception",
    "infinity", "jina_ai", "lambda_ai", "langflow", "langfuse", "langgraph", "lemonade",
    "libertai", "litellm_agent", "litellm_proxy", "llamafile", "llamagate", "lm_studio",
    "manus", "maritalk", "meta", "meta_llama", "milvus", "minimax", "mistral", "modelscope",
    "mongodb", "moonshot", "morph", "nano-gpt", "nebius", "neosantara", "nlp_cloud",
    "novita", "nscale", "nvidia_nim", "nvidia_riva", "oci", "ollama", "ollama_chat",
    "oobabooga", "openai", "openai_like", "openrouter", "ovhcloud", "parasail",
    "perplexity", "petals", "pg_vector", "pinstripes", "poe", "predibase", "publicai",
    "qwen_ai_platform", "qwencloud", "ragflow", "recraft", "reducto", "replicate",
    "runwayml", "s3_vectors", "sagemaker", "sagemaker_chat", "sagemaker_nova", "sambanova",
    "sap", "sarvam", "scaleway", "scx-ai", "snowflake", "soniox", "stability", "synthetic",
    "tencent", "tensormesh", "text-completion-codestral", "text-completion-inception",
    "text-completion-openai", "together_ai", "topaz", "triton", "v0", "valkey", "veniceai",
    "vercel_ai_gateway", "vertex_ai", "vertex_ai_beta", "vllm", "volcengine", "voyage",
    "wandb", "watsonx", "watsonx_text", "xai", "xiaomi_mimo", "xinference", "zai"
})
"""The prefixes LiteLLM 1.101.6 routes a model string by (``provider/model``): its
``provider_list`` and its JSON-configured providers, so the hub knows a run's provider
when it arrives without importing LiteLLM."""

BUILTIN_PROVIDERS = {"reference": "r2r", "fake": "fake"}
"""The offline models, answered inside the replay (no address is called)."""

NAME_CHARACTERS = re.compile(r"[A-Za-z0-9._\-/:@+]+")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:/")
_INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"}
"""Control, format (zero-width space, bidi marks), surrogate, private-use, unassigned and
separator characters."""
EXAMPLES = "e.g. gpt-4o, anthropic/claude-sonnet-4-5, r2r/reference"


def name_problem(text: str) -> tuple[str, str] | None:
    """Why the model string ``text`` cannot be taken, as (code, reason), on its own terms
    (its providers aside); None when it can."""
    for position, character in enumerate(text):
        if unicodedata.category(character) in _INVISIBLE or character.isspace():
            return "model_name", (f"{_character(character)} at position {position} is "
                                  "invisible, a space or a control character")
    normal = unicodedata.normalize("NFKC", text)
    if normal != text:
        return "model_name", f"is not in Unicode normal form NFKC (it reads as {normal!a})"
    foreign = next(((i, c) for i, c in enumerate(text) if not c.isascii()), None)
    if foreign is not None:
        return "model_name", (f"{_character(foreign[1])} at position {foreign[0]} is not "
                              "ASCII and can pass for another letter")
    try:
        spec = ModelSpec.parse(text)
    except ValueError as exc:
        return "model_name", str(exc)
    path = "names a file; the hub never reads a path a submission names"
    if spec.kind == "samples":
        return "model_path", path
    if _SCHEME.search(text) or "//" in text:
        return "model_url", "carries a URL; the hub never calls an address a submission names"
    if text.startswith(("/", "~", ".")) or "\\" in text \
            or any(segment in (".", "..") for segment in text.split("/")):
        return "model_path", path
    bad = next((c for c in text if not NAME_CHARACTERS.fullmatch(c)), None)
    if bad is not None:
        return "model_name", f"{bad!r} is not a character of model names"
    return None


def _character(character: str) -> str:
    name = unicodedata.name(character, "unnamed")
    return f"U+{ord(character):04X} {name}"


def provider_of(spec: ModelSpec) -> str | None:
    """The provider of ``spec`` as its text names it: ``r2r`` and ``fake`` for the built-ins,
    the prefix when it is one of LiteLLM's; None when LiteLLM infers it from its model lists
    (``gpt-4o``; a prefix that is no provider, ``acme/coder``, LiteLLM routes nowhere)."""
    if spec.kind in BUILTIN_PROVIDERS:
        return BUILTIN_PROVIDERS[spec.kind]
    prefix = spec.text.split("/", 1)[0] if "/" in spec.text else None
    return prefix if prefix in LITELLM_PROVIDERS else None


def allowed_providers(config: HubConfig) -> frozenset[str]:
    """The providers ``R2R_HUB_REVERIFY_PROVIDERS`` allows (``hosted`` expanded)."""
    names = {name.strip() for name in config.reverify_providers.split(",") if name.strip()}
    return frozenset(names - {"hosted"}) | (HOSTED_PROVIDERS if "hosted" in names else frozenset())


def check_model_name(text: object, config: HubConfig, where: str = "run.model") -> ModelSpec:
    """``text`` parsed, or refused (422) with the code and a one-line reason."""
    if not isinstance(text, str):
        raise Refused(422, "model_name", f"{where}: expected a model string ({EXAMPLES})")
    shown = ascii(text[:120])
    problem = name_problem(text)
    if problem is not None:
        code, reason = problem
        raise Refused(422, code, f"{where} {shown}: {reason}; give the model's name as its "
                      f"provider spells it ({EXAMPLES})")
    spec = ModelSpec.parse(text)
    provider = provider_of(spec)
    if provider in ENDPOINT_PROVIDERS and provider not in allowed_providers(config):
        raise Refused(422, "model_provider", f"{where} {shown}: {provider} models are served "
                      "at an address set by configuration (api_base), and this hub calls no "
                      f"such provider (R2R_HUB_REVERIFY_PROVIDERS: "
                      f"{config.reverify_providers or 'none'}); runs of them cannot be ranked "
                      "here")
    return spec


def llm_judges(judges: Iterable[object]) -> list[str]:
    """The LLM judges among a run's ``judges``: every one but the static analyser, which is
    no model (nothing checks its name, nothing asks it again)."""
    return [str(judge) for judge in judges if judge != STATIC_JUDGE]


def check_model_names(model: object, judges: Sequence[object], config: HubConfig) -> None:
    """The run's model and its LLM judges (models the hub asks again too) checked by
    :func:`check_model_name`; refused (422) at the first that is not taken."""
    check_model_name(model, config)
    for index, judge in enumerate(judges):
        if judge != STATIC_JUDGE:
            check_model_name(judge, config, where=f"run.judges[{index}]")


def why_not_called(model: str, config: HubConfig, *,
                   resolve: Callable[[str], str] | None = None) -> str | None:
    """Why re-verification does not call ``model``; None when it does. ``resolve`` names
    the provider LiteLLM would route the model to (it raises ``ValueError`` for none);
    without it, a model whose text does not name its provider is not refused here."""
    problem = name_problem(model)
    if problem is not None:
        return f"the hub does not call {model[:120]!a}: {problem[1]}"
    spec = ModelSpec.parse(model)
    patterns = [pattern.strip() for pattern in config.reverify_models.split(",")
                if pattern.strip()]
    if not any(fnmatch.fnmatchcase(model, pattern) for pattern in patterns):
        return (f"this hub does not call {model} (its R2R_HUB_REVERIFY_MODELS: "
                f"{config.reverify_models or 'none'})")
    if spec.kind in BUILTIN_PROVIDERS:
        return None
    provider = provider_of(spec)
    if provider is None and resolve is not None:
        try:
            provider = resolve(model)
        except ValueError:
            return f"the hub cannot call {model}: LiteLLM routes it to no provider"
    if provider is not None and provider not in allowed_providers(config):
        return (f"this hub does not call {provider} models (its R2R_HUB_REVERIFY_PROVIDERS: "
                f"{config.reverify_providers or 'none'})")
    return None
