"""From a model string to a provider: built-in offline models, or LiteLLM for everything else."""

from __future__ import annotations

from collections.abc import Iterable

from ._base import Provider, ProviderConfigError
from ._litellm import FAKE_PREFIX, LiteLLMProvider
from ._reference import REFERENCE_MODEL, ReferenceProvider
from ._samples import SAMPLES_PREFIX, SamplesProvider

OFFLINE_PREFIX = "r2r/"


def load_offline(model: str, *, task_ids: Iterable[str] | None = None) -> Provider:
    """Build a built-in ``r2r/…`` model; a samples file is read and validated here.

    With ``task_ids``, a samples file must also cover every one of them.
    Raises ProviderConfigError with what is wrong and how to fix it.
    """
    if model == REFERENCE_MODEL:
        return ReferenceProvider()
    if model.startswith(SAMPLES_PREFIX):
        path = model[len(SAMPLES_PREFIX):]
        if not path:
            raise ProviderConfigError("r2r/samples needs a path: r2r/samples:PATH")
        provider = SamplesProvider(path)
        if task_ids is not None:
            provider.check_covers(task_ids)
        return provider
    raise ProviderConfigError(
        f"unknown built-in model {model!r}; built-ins are {REFERENCE_MODEL} and {SAMPLES_PREFIX}PATH"
    )


def resolve_provider(model: str, *, api_base: str | None = None, concurrency: int = 4) -> Provider:
    """The provider for ``model``: ``r2r/…`` offline built-ins, else the LiteLLM adapter.

    Building a LiteLLM provider does not import litellm; its first call does.
    """
    model = model.strip()
    if not model or any(c.isspace() for c in model):
        raise ProviderConfigError(
            f"model must be one word such as gpt-4o or {REFERENCE_MODEL}, got {model!r}"
        )
    if model.startswith(OFFLINE_PREFIX):
        return load_offline(model)
    return LiteLLMProvider(model, api_base=api_base, concurrency=concurrency)


def check_model(model: str, *, api_base: str | None = None,
                task_ids: Iterable[str] | None = None) -> None:
    """Check, before any call, that ``model`` can answer; raise a ConfigurationError
    (ProviderConfigError, or FakeScriptError for a ``fake/`` model) saying why not.

    A built-in is loaded (a samples file read, and checked to cover ``task_ids``); a
    ``fake/`` model must be in the fake script (litellm is not imported for it); any other
    model must be one LiteLLM can route, which imports litellm (seconds of CPU).
    """
    if model.startswith(OFFLINE_PREFIX):
        load_offline(model, task_ids=task_ids)
    elif model.startswith(FAKE_PREFIX):
        from ..testing import check_scripted

        check_scripted(model[len(FAKE_PREFIX):])
    else:
        LiteLLMProvider(model, api_base=api_base).validate()
