"""The LiteLLM adapter: every remote model (``gpt-4o``, ``anthropic/…``, ``ollama_chat/…``, …)."""

from __future__ import annotations

import math
import os
import re
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from types import ModuleType
from typing import Any, TypeVar

from ..models import DEFAULT_CONCURRENCY, FAKE_PREFIX, ReasoningEffort
from ._base import (
    Completion,
    CompletionRequest,
    Embedding,
    FailureCause,
    Provider,
    ProviderConfigError,
    ProviderError,
)
from ._breaker import check_breaker, record_failure, record_success
from ._env import import_litellm
from ._errors import connection_url, describe, root_message
from ._gate import CallGate
from ._params import ModelParameters
from ._retry import HARD_TIMEOUT_GRACE_S, Attempted, RetryPolicy, Sleep, call_with_retries
from ._routing import unroutable_message
from ._usage import (
    reasoning_token_count,
    response_cost,
    response_reasoning,
    response_text,
    response_vectors,
    token_counts,
)
from .fake import register_fake_provider

# The OpenAI SDK refuses to start without a key, even for a keyless local server.
_PLACEHOLDER_KEY = "sk-no-key-required"
_CREDENTIAL_NAME = re.compile(r"KEY|TOKEN|SECRET|CREDENTIALS", re.IGNORECASE)
T = TypeVar("T")


class LiteLLMProvider(Provider):
    """A model served through litellm, with retries, a concurrency cap and usage accounting.

    ``complete`` is synchronous and thread-safe; every call runs on the process's
    one background event loop and passes ``gate`` (:class:`.CallGate`): a run hands every
    provider it builds its own gate, so at most ``--r2r-concurrency`` calls of all of them
    are in flight (waiting out a backoff does not hold a slot), and a rate limit pauses every
    call of this model. Without a ``gate``, the provider has one of its own of
    ``concurrency`` slots.
    ``fake/<name>`` models are served in-process by :mod:`pytest_req2rank.providers.fake`.
    litellm is imported on the first call, not before. A model that keeps failing for a
    run-wide cause is not called again (:mod:`._breaker`). Every error names the model, and
    a connection error the URL it tried.

    ``reasoning_effort`` is sent with every request of this provider (the target model's
    ``--r2r-reasoning-effort``); what else is sent follows the model (:class:`ModelParameters`).
    """

    def __init__(self, model: str, *, api_base: str | None = None, gate: CallGate | None = None,
                 concurrency: int = DEFAULT_CONCURRENCY, policy: RetryPolicy | None = None,
                 sleep: Sleep | None = None,
                 reasoning_effort: ReasoningEffort | None = None) -> None:
        self.model = model
        self.api_base = api_base
        self.gate = gate if gate is not None else CallGate(concurrency)
        self.policy = policy or RetryPolicy()
        self.reasoning_effort: ReasoningEffort | None = reasoning_effort
        self._sleep: Sleep | None = sleep
        self._litellm: ModuleType | None = None
        self._parameters: ModelParameters | None = None
        self._ready_lock = threading.Lock()

    @property
    def concurrency(self) -> int:
        """The most calls in flight through this provider's gate."""
        return self.gate.slots

    @property
    def answer_parameters(self) -> dict[str, Any]:
        return {"reasoning_effort": self.reasoning_effort} if self.reasoning_effort else {}

    def validate(self) -> None:
        """Import litellm and check that it can route this model, and that the model takes the
        reasoning effort asked for; raise ProviderConfigError if not."""
        self._ensure_ready()
        self.parameters.check_reasoning_effort()

    @property
    def parameters(self) -> ModelParameters:
        """What this model takes (output limit, temperature, reasoning effort, JSON Schema)."""
        self._ensure_ready()
        assert self._parameters is not None
        return self._parameters

    def _ensure_ready(self) -> ModuleType:
        with self._ready_lock:
            if self._litellm is not None:
                return self._litellm
            litellm = import_litellm()
            self._register_fake()
            try:
                litellm.get_llm_provider(model=self.model, api_base=self.api_base)
            except Exception as exc:
                raise ProviderConfigError(unroutable_message(self.model)) from exc
            self._parameters = ModelParameters(litellm, self.model, api_base=self.api_base,
                                               reasoning_effort=self.reasoning_effort)
            self._litellm = litellm
            return litellm

    def _register_fake(self) -> None:
        # On every call, since a test may have reset litellm's globals in between.
        if self.model.startswith(FAKE_PREFIX):
            register_fake_provider()

    def request_kwargs(self, request: CompletionRequest) -> dict[str, Any]:
        """The keyword arguments passed to ``litellm.acompletion`` for ``request``.

        LiteLLM renames them for the provider (``max_tokens`` is sent as
        ``max_completion_tokens`` to OpenAI's reasoning models). A temperature the model
        refuses is left out; the output budget gets the model's thinking budget on top when it
        reasons, capped at its maximum output tokens; an answer schema becomes structured
        output where the model enforces one, JSON mode elsewhere. ``drop_params`` stays on for
        parameters a provider ignores (``seed`` for Anthropic, for one).
        """
        parameters = self.parameters
        parameters.check_reasoning_effort()
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [message.model_dump() for message in request.messages],
            "timeout": request.timeout_s,
            "drop_params": True,
            # Retries happen in exactly one place: RetryPolicy.
            "max_retries": 0,
            "num_retries": 0,
        }
        if parameters.takes_temperature(request.temperature):
            kwargs["temperature"] = request.temperature
        if request.max_tokens is not None:
            kwargs["max_tokens"] = parameters.budget(request.max_tokens).sent
        if request.seed is not None:
            kwargs["seed"] = request.seed
        response_format = parameters.response_format(request)
        if response_format is not None:
            kwargs["response_format"] = response_format
        if self.reasoning_effort is not None:
            kwargs["reasoning_effort"] = self.reasoning_effort
            if parameters.custom:  # LiteLLM passes a custom handler only what it lists
                kwargs["allowed_openai_params"] = ["reasoning_effort"]
        kwargs.update(self.endpoint_kwargs())
        return kwargs

    def endpoint_kwargs(self) -> dict[str, Any]:
        """``api_base``, and the placeholder key an OpenAI-compatible server without a key needs."""
        if self.api_base is None:
            return {}
        if self.model.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
            return {"api_base": self.api_base, "api_key": _PLACEHOLDER_KEY}
        return {"api_base": self.api_base}

    def missing_credentials(self) -> list[str]:
        """The credential variables LiteLLM says this model needs and the environment lacks
        (``litellm.validate_environment``, no network call; what else it lists, such as a
        base URL with a default, is left to a request to tell)."""
        litellm = self._ensure_ready()
        try:
            found = litellm.validate_environment(
                model=self.model, api_key=self.endpoint_kwargs().get("api_key"),
                api_base=self.api_base)
        except Exception:  # noqa: BLE001 - litellm's check is a hint; a request decides
            return []
        return [name for name in found.get("missing_keys") or []
                if _CREDENTIAL_NAME.search(name)]

    def credential_variables(self) -> list[str]:
        """The environment variables set for this model's provider that look like its
        credentials (``OPENAI_API_KEY`` for ``gpt-4o``)."""
        litellm = self._ensure_ready()
        try:
            provider = str(litellm.get_llm_provider(model=self.model, api_base=self.api_base)[1])
        except Exception:  # noqa: BLE001 - routed already (validate); a name is only a hint
            return []
        prefixes = tuple({f"{provider.upper()}_", f"{provider.upper().replace('_', '')}_"})
        return sorted(name for name in os.environ
                      if name.startswith(prefixes) and _CREDENTIAL_NAME.search(name))

    def default_api_base(self) -> str | None:
        """Where LiteLLM sends this model's calls without ``--r2r-api-base``, when it says."""
        litellm = self._ensure_ready()
        try:
            base = litellm.get_api_base(self.model, {})
        except Exception:  # noqa: BLE001 - a helper of litellm's; no answer is an answer
            return None
        return base if isinstance(base, str) and base else None

    def explain(self, exc: BaseException, cause: FailureCause) -> str:
        """A failed call's message: the model, the provider's own words and, when the server
        could not be reached, the URL tried."""
        text = describe(exc)
        if cause == "unreachable":
            url = connection_url(exc) or self.api_base or self.default_api_base()
            root = root_message(exc)
            detail = text if root in text else f"{text}; {root}"
            text = (f"cannot connect to {url} ({detail})" if url else
                    f"cannot connect to the provider's default endpoint ({detail})")
        return text if self.model in text else f"{self.model}: {text}"

    async def _guarded(self, attempt: Callable[[], Awaitable[T]], sleep: Sleep,
                       shared: Any) -> Attempted[T]:
        """``attempt`` under the retry policy, unless the model's breaker is open; its outcome
        counts towards the breaker."""
        check_breaker(self.model, self.api_base)
        try:
            done = await call_with_retries(attempt, policy=self.policy, sleep=sleep,
                                           shared=shared, explain=self.explain)
        except ProviderError as error:
            record_failure(self.model, self.api_base, error)
            raise
        record_success(self.model, self.api_base)
        return done

    def complete(self, request: CompletionRequest) -> Completion:
        from ._loop import run_sync  # with asyncio, on the first call: a static run needs neither

        return run_sync(self._acomplete(request))

    async def acomplete(self, request: CompletionRequest) -> Completion:
        """Async :meth:`complete`, usable from any event loop."""
        from ._loop import run_there  # as in complete()

        return await run_there(self._acomplete(request))

    async def _acomplete(self, request: CompletionRequest) -> Completion:
        import asyncio  # already loaded here (this runs on the event loop); kept off the module

        litellm = self._ensure_ready()
        self._register_fake()
        gate = self.gate
        kwargs = self.request_kwargs(request)

        async def attempt() -> Any:
            async with gate.slot(self.model):
                async with asyncio.timeout(request.timeout_s + HARD_TIMEOUT_GRACE_S):
                    return await litellm.acompletion(**kwargs)

        started = time.perf_counter()
        done = await self._guarded(attempt, self._sleep or asyncio.sleep, (gate, self.model))
        latency = time.perf_counter() - started
        response = done.value
        prompt_tokens, completion_tokens = token_counts(response)
        choices = getattr(response, "choices", None) or []
        return Completion(
            text=response_text(response),
            reasoning=response_reasoning(response),
            model=self.model,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            reasoning_tokens=reasoning_token_count(response),
            cost_usd=response_cost(litellm, response, self.model),
            latency_s=latency,
            attempts=done.attempts,
            raw={
                "id": getattr(response, "id", None),
                "response_model": getattr(response, "model", None),
                "finish_reason": getattr(choices[0], "finish_reason", None) if choices else None,
                "retry_delays_s": list(done.delays_s),
            },
        )

    def embed(self, texts: Sequence[str], *, timeout_s: float = 120.0) -> Embedding:
        """The embedding vectors of ``texts`` (one ``litellm.aembedding`` call, through the same
        gate, retries and accounting as a completion); raises :class:`ProviderError`, also when
        the answer is not one finite vector per text."""
        from ._loop import run_sync  # as complete()

        return run_sync(self._aembed(list(texts), timeout_s))

    async def aembed(self, texts: Sequence[str], *, timeout_s: float = 120.0) -> Embedding:
        """Async :meth:`embed`, usable from any event loop."""
        from ._loop import run_there  # as complete()

        return await run_there(self._aembed(list(texts), timeout_s))

    async def _aembed(self, texts: list[str], timeout_s: float) -> Embedding:
        import asyncio  # as _acomplete

        litellm = self._ensure_ready()
        self._register_fake()
        gate = self.gate
        kwargs: dict[str, Any] = {"model": self.model, "input": texts, "timeout": timeout_s,
                                  "max_retries": 0, "num_retries": 0, **self.endpoint_kwargs()}

        async def attempt() -> Any:
            async with gate.slot(self.model):
                async with asyncio.timeout(timeout_s + HARD_TIMEOUT_GRACE_S):
                    return await litellm.aembedding(**kwargs)

        started = time.perf_counter()
        done = await self._guarded(attempt, self._sleep or asyncio.sleep, (gate, self.model))
        vectors = response_vectors(done.value)
        if len(vectors) != len(texts) or any(
                not vector or not all(math.isfinite(x) for x in vector) for vector in vectors):
            raise ProviderError("api_error", f"{self.model} answered {len(vectors)} embedding "
                                f"vectors for {len(texts)} texts, or a vector that is empty or "
                                "not finite", attempts=done.attempts)
        prompt_tokens, _ = token_counts(done.value)
        return Embedding(vectors=vectors, model=self.model, prompt_tokens=prompt_tokens,
                         cost_usd=response_cost(litellm, done.value, self.model),
                         latency_s=time.perf_counter() - started, attempts=done.attempts)
