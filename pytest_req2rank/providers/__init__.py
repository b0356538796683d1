"""LLM access: one chat completion per call, with its usage, or a classified failure.

``resolve_provider(model)`` maps a model string to a :class:`Provider`:
``r2r/reference``, ``r2r/samples:PATH`` and ``r2r/degraded:P`` are offline built-ins that
never import litellm; every other string is a LiteLLM model served by
:class:`LiteLLMProvider` (``fake/<name>`` by the scripted fake in
:mod:`pytest_req2rank.providers.fake`). :func:`preflight` checks a run's models with one
tiny request each before the first item; a model that keeps failing for a run-wide cause
(revoked key, exhausted quota) is not called again and :func:`run_stop_reason` says why.
A :class:`CallGate` caps the calls in flight of the providers it is handed to (a run hands
one to every provider it builds).
"""

from __future__ import annotations

from ._base import (
    PREFLIGHT_PROMPT,
    AnswerSchema,
    Completion,
    CompletionRequest,
    Embedding,
    Message,
    Provider,
    ProviderConfigError,
    ProviderError,
    usage_of,
)
from ._breaker import reset_breakers, run_stop_reason
from ._cache import CachedProvider
from ._degraded import DegradedProvider
from ._env import OFFLINE_DEFAULTS
from ._gate import CallGate
from ._inflight import calls_in_flight, calls_refused
from ._litellm import LiteLLMProvider
from ._preflight import (
    PREFLIGHT_MAX_TOKENS,
    PreflightFailed,
    PreflightModel,
    PreflightReport,
    preflight,
)
from ._reference import ReferenceProvider, answer_text
from ._resolve import (
    check_model,
    check_model_name,
    litellm_provider,
    parameter_notes,
    resolve_provider,
)
from ._retry import RetryPolicy
from ._samples import SamplesProvider, load_samples
from ._schema import strict_answer_schema, strict_mode_problems

__all__ = [
    "OFFLINE_DEFAULTS",
    "PREFLIGHT_MAX_TOKENS",
    "PREFLIGHT_PROMPT",
    "AnswerSchema",
    "CachedProvider",
    "CallGate",
    "Completion",
    "CompletionRequest",
    "DegradedProvider",
    "Embedding",
    "LiteLLMProvider",
    "Message",
    "PreflightFailed",
    "PreflightModel",
    "PreflightReport",
    "Provider",
    "ProviderConfigError",
    "ProviderError",
    "ReferenceProvider",
    "RetryPolicy",
    "SamplesProvider",
    "answer_text",
    "calls_in_flight",
    "calls_refused",
    "check_model",
    "check_model_name",
    "litellm_provider",
    "load_samples",
    "parameter_notes",
    "preflight",
    "reset_breakers",
    "resolve_provider",
    "run_stop_reason",
    "strict_answer_schema",
    "strict_mode_problems",
    "usage_of",
]

