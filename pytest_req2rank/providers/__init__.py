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
    PERMANENT_CAUSES,
    PREFLIGHT_PROMPT,
    RUN_WIDE_CAUSES,
    AnswerSchema,
    Completion,
    CompletionRequest,
    Embedding,
    FailureCause,
    Message,
    Provider,
    ProviderConfigError,
    ProviderError,
    usage_of,
)
from ._breaker import RUN_WIDE_FAILURES_TO_STOP, reset_breakers, run_stop_reason
from ._cache import CachedProvider
from ._degraded import DegradedProvider
from ._env import OFFLINE_DEFAULTS, apply_offline_defaults
from ._gate import CallGate
from ._inflight import calls_in_flight, calls_refused
from ._litellm import LiteLLMProvider
from ._params import Budget, ModelParameters
from ._preflight import (
    PREFLIGHT_MAX_TOKENS,
    PreflightCheck,
    PreflightFailed,
    PreflightModel,
    PreflightReport,
    preflight,
)
from ._reasoning import SplitAnswer, split_reasoning
from ._reference import ReferenceProvider, answer_text
from ._resolve import (
    check_model,
    check_model_name,
    litellm_provider,
    load_offline,
    parameter_notes,
    resolve_provider,
)
from ._retry import RetryPolicy
from ._samples import Sample, SamplesProvider, load_samples
from ._schema import strict_answer_schema, strict_mode_problems

__all__ = [
    "OFFLINE_DEFAULTS",
    "PERMANENT_CAUSES",
    "PREFLIGHT_MAX_TOKENS",
    "PREFLIGHT_PROMPT",
    "RUN_WIDE_CAUSES",
    "RUN_WIDE_FAILURES_TO_STOP",
    "AnswerSchema",
    "Budget",
    "CachedProvider",
    "CallGate",
    "Completion",
    "CompletionRequest",
    "DegradedProvider",
    "Embedding",
    "FailureCause",
    "LiteLLMProvider",
    "Message",
    "ModelParameters",
    "PreflightCheck",
    "PreflightFailed",
    "PreflightModel",
    "PreflightReport",
    "Provider",
    "ProviderConfigError",
    "ProviderError",
    "ReferenceProvider",
    "RetryPolicy",
    "Sample",
    "SamplesProvider",
    "SplitAnswer",
    "answer_text",
    "apply_offline_defaults",
    "calls_in_flight",
    "calls_refused",
    "check_model",
    "check_model_name",
    "litellm_provider",
    "load_offline",
    "load_samples",
    "parameter_notes",
    "preflight",
    "reset_breakers",
    "resolve_provider",
    "run_stop_reason",
    "split_reasoning",
    "strict_answer_schema",
    "strict_mode_problems",
    "usage_of",
]

