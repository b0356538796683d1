"""A response cache in front of any provider: a resumed run never asks a model twice."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Protocol

from ._base import Completion, CompletionRequest, Provider


class ResponseCache(Protocol):
    """Where cached completions live (the SQLite store implements it)."""

    def cache_get(self, key: str) -> dict[str, Any] | None: ...

    def cache_put(self, key: str, model: str, completion: dict[str, Any]) -> None: ...


def cache_key(model: str, request: CompletionRequest, namespace: str, api_base: str | None,
              parameters: dict[str, Any] | None = None) -> str:
    """A stable key over everything that shapes the answer: model, messages, parameters,
    prompt version (``cache_tag``), endpoint, the namespace (the run id), the sample index, the
    answer schema and the provider's own ``parameters`` (:attr:`Provider.answer_parameters`);
    the last three are left out when unset, so the keys of requests without them stay as
    they were."""
    payload: dict[str, Any] = {
        "namespace": namespace,
        "model": model,
        "api_base": api_base,
        "messages": [message.model_dump() for message in request.messages],
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "seed": request.seed,
        "json_mode": request.json_mode,
        "tag": request.cache_tag,
        "task": request.task.item_id if request.task is not None else None,
    }
    if request.sample:
        payload["sample"] = request.sample
    if request.answer_schema is not None:
        payload["answer_schema"] = request.answer_schema.model_dump()
    if parameters:
        payload["parameters"] = parameters
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CachedProvider(Provider):
    """Answers from the cache when it can; otherwise asks ``inner`` and stores the answer.

    A cache hit reports ``attempts == 0``: no model call was made. Failures are
    never cached, so a resumed run retries them.
    """

    def __init__(
        self, inner: Provider, cache: ResponseCache, *, namespace: str, api_base: str | None = None
    ) -> None:
        self.inner = inner
        self.model = inner.model
        self._cache = cache
        self._namespace = namespace
        self._api_base = api_base

    @property
    def offline(self) -> bool:
        return self.inner.offline

    def _lookup(self, request: CompletionRequest) -> tuple[str, Completion | None]:
        key = cache_key(self.model, request, self._namespace, self._api_base,
                        self.inner.answer_parameters)
        hit = self._cache.cache_get(key)
        if hit is None:
            return key, None
        return key, Completion.model_validate(hit).model_copy(
            update={"attempts": 0, "latency_s": 0.0, "raw": {**hit.get("raw", {}), "cached": True}}
        )

    def complete(self, request: CompletionRequest) -> Completion:
        key, hit = self._lookup(request)
        if hit is not None:
            return hit
        completion = self.inner.complete(request)
        self._cache.cache_put(key, self.model, completion.model_dump(mode="json"))
        return completion

    async def acomplete(self, request: CompletionRequest) -> Completion:
        key, hit = self._lookup(request)
        if hit is not None:
            return hit
        completion = await self.inner.acomplete(request)
        self._cache.cache_put(key, self.model, completion.model_dump(mode="json"))
        return completion

    def close(self) -> None:
        self.inner.close()
