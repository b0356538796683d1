"""From a model to a provider: built-in offline models, or LiteLLM for everything else."""

from __future__ import annotations

from collections.abc import Iterable

from ..models import ModelSpec, ReasoningEffort
from ._base import Provider, ProviderConfigError
from ._degraded import DegradedProvider
from ._env import import_litellm
from ._gate import CallGate
from ._litellm import LiteLLMProvider
from ._reference import ReferenceProvider
from ._routing import surely_unroutable, unroutable_message
from ._samples import SamplesProvider
from .fake import check_scripted, declares_info


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
    if spec.kind == "degraded":
        return DegradedProvider(spec)
    if spec.kind != "samples":
        raise ProviderConfigError(f"{spec} is not a built-in model")
    provider = SamplesProvider(spec.path)
    if task_ids is not None:
        provider.check_covers(task_ids)
    return provider


def resolve_provider(
    model: ModelSpec | str, *, api_base: str | None = None, gate: CallGate | None = None,
    reasoning_effort: ReasoningEffort | None = None,
) -> Provider:
    """The provider for ``model``: ``r2r/…`` offline built-ins, else the LiteLLM adapter,
    its calls through ``gate`` (a run's; else a gate of its own of the default size),
    sending ``reasoning_effort`` with every request (built-ins ignore both).

    Building a LiteLLM provider does not import litellm; its first call does.
    """
    spec = model_spec(model)
    if spec.is_builtin:
        return load_offline(spec)
    return LiteLLMProvider(spec.text, api_base=api_base, gate=gate,
                           reasoning_effort=reasoning_effort)


def check_model(model: ModelSpec | str, *, api_base: str | None = None,
                task_ids: Iterable[str] | None = None,
                reasoning_effort: ReasoningEffort | None = None) -> None:
    """Check, before any call, that ``model`` can answer; raise a ConfigurationError
    (ProviderConfigError, or FakeScriptError for a ``fake/`` model) saying why not.

    A built-in is loaded (a samples file read, and checked to cover ``task_ids``); a
    ``fake/`` model must be in the fake script (litellm is not imported for it unless a
    ``reasoning_effort`` is asked); any other model must be one LiteLLM can route and that
    takes the ``reasoning_effort``, which imports litellm (seconds of CPU) unless LiteLLM's
    own files already show that it routes the model nowhere.
    """
    spec = model_spec(model)
    check_model_name(spec, api_base=api_base)
    if spec.is_builtin:
        load_offline(spec, task_ids=task_ids)
        return
    if spec.kind == "fake" and reasoning_effort is None:
        return
    LiteLLMProvider(spec.text, api_base=api_base, reasoning_effort=reasoning_effort).validate()


def check_model_name(model: ModelSpec | str, *, api_base: str | None = None) -> None:
    """The part of :func:`check_model` that reads no task, no samples file and no litellm:
    a ``fake/`` model must be in the fake script, and a remote model's name must not be
    one LiteLLM's own files show it routes nowhere. Raises a ConfigurationError."""
    spec = model_spec(model)
    if spec.kind == "fake":
        check_scripted(spec.fake_name)
    elif not spec.is_builtin and surely_unroutable(spec.text, api_base):
        raise ProviderConfigError(unroutable_message(spec.text))


def parameter_notes(model: ModelSpec | str, *, budgets: Iterable[int], temperature: float,
                    api_base: str | None = None,
                    reasoning_effort: ReasoningEffort | None = None) -> list[str]:
    """What a run's header says about the parameters ``model`` is sent for answers of
    ``budgets`` tokens at ``temperature`` (see :meth:`ModelParameters.notes`); nothing for a
    built-in, nor for a ``fake/`` model without effort or scripted model information (whose
    parameters go as asked; litellm is not imported for them)."""
    spec = model_spec(model)
    if spec.is_builtin or (spec.kind == "fake" and reasoning_effort is None
                           and not declares_info(spec.fake_name)):
        return []
    provider = LiteLLMProvider(spec.text, api_base=api_base, reasoning_effort=reasoning_effort)
    return provider.parameters.notes(set(budgets), temperature)


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
