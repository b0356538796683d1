"""From a model to a provider: built-in offline models, or LiteLLM for everything else."""

from __future__ import annotations

from collections.abc import Iterable

from ..models import DEFAULT_CONCURRENCY, ModelSpec
from ._base import Provider, ProviderConfigError
from ._env import import_litellm
from ._litellm import LiteLLMProvider
from ._reference import ReferenceProvider
from ._samples import SamplesProvider
from .fake import check_scripted


def model_spec(model: ModelSpec | str) -> ModelSpec:
    """``model`` parsed; a bad model string is a :class:`ProviderConfigError` saying why."""
    if isinstance(model, ModelSpec):
        return model
    try:
        return ModelSpec.parse(model)
    except ValueError as exc:
        raise ProviderConfigError(f"model {model!r}: {exc}") from None


def load_offline(model: ModelSpec | str, *, task_ids: Iterable[str] | None = None) -> Provider:
    """Build a built-in ``r2r/…`` model; a samples file is read and validated here.

    With ``task_ids``, a samples file must also cover every one of them.
    Raises ProviderConfigError with what is wrong and how to fix it.
    """
    spec = model_spec(model)
    if spec.kind == "reference":
        return ReferenceProvider()
    if spec.kind != "samples":
        raise ProviderConfigError(f"{spec} is not a built-in model")
    provider = SamplesProvider(spec.path)
    if task_ids is not None:
        provider.check_covers(task_ids)
    return provider


def resolve_provider(
    model: ModelSpec | str, *, api_base: str | None = None,
    concurrency: int = DEFAULT_CONCURRENCY
) -> Provider:
    """The provider for ``model``: ``r2r/…`` offline built-ins, else the LiteLLM adapter.

    Building a LiteLLM provider does not import litellm; its first call does.
    """
    spec = model_spec(model)
    if spec.is_builtin:
        return load_offline(spec)
    return LiteLLMProvider(spec.text, api_base=api_base, concurrency=concurrency)


def check_model(model: ModelSpec | str, *, api_base: str | None = None,
                task_ids: Iterable[str] | None = None) -> None:
    """Check, before any call, that ``model`` can answer; raise a ConfigurationError
    (ProviderConfigError, or FakeScriptError for a ``fake/`` model) saying why not.

    A built-in is loaded (a samples file read, and checked to cover ``task_ids``); a
    ``fake/`` model must be in the fake script (litellm is not imported for it); any other
    model must be one LiteLLM can route, which imports litellm (seconds of CPU).
    """
    spec = model_spec(model)
    if spec.is_builtin:
        load_offline(spec, task_ids=task_ids)
    elif spec.kind == "fake":
        check_scripted(spec.fake_name)
    else:
        LiteLLMProvider(spec.text, api_base=api_base).validate()


def litellm_provider(model: str) -> str:
    """The LiteLLM provider that would serve ``model`` (``openai`` for ``gpt-4o``, ``fake``
    for ``fake/…``); imports litellm. :class:`ProviderConfigError` when LiteLLM routes it to
    none."""
    if model_spec(model).kind == "fake":
        return "fake"
    litellm = import_litellm()
    try:
        return str(litellm.get_llm_provider(model=model)[1])
    except Exception as exc:  # litellm raises its BadRequestError, or anything on odd names
        raise ProviderConfigError(f"LiteLLM routes model {model!r} to no provider") from exc
