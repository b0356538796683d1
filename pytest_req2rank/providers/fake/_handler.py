"""The fake model server: a ``litellm.CustomLLM`` answering ``fake/<name>`` from the script."""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from litellm.exceptions import BadRequestError, NotFoundError
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import EmbeddingResponse, ModelResponse
from litellm.types.utils import Usage as LiteLLMUsage

from .._base import PREFLIGHT_PROMPT
from ._failures import scripted_error
from ._prices import ensure_prices
from ._script import FAKE_PROVIDER as PROVIDER
from ._script import FakeScriptError, Step
from ._state import STATE, current_script, next_step, record_call

PREFLIGHT_ANSWER = Step(text="ok")
PREFLIGHT_VECTOR = (1.0, 0.0, 0.0)


class FakeLLM(CustomLLM):
    """Serves every ``fake/<name>`` call from the active script (see :mod:`pytest_req2rank.providers.fake`)."""

    def completion(self, *args: Any, **kwargs: Any) -> ModelResponse:
        call = _Call(kwargs)
        with call.in_flight():
            if call.step is not None and call.step.delay_s:
                time.sleep(call.step.delay_s)
            return call.finish()

    async def acompletion(self, *args: Any, **kwargs: Any) -> ModelResponse:
        call = _Call(kwargs)
        with call.in_flight():
            if call.step is not None and call.step.delay_s:
                await asyncio.sleep(call.step.delay_s)
            return call.finish()


    def embedding(self, *args: Any, **kwargs: Any) -> EmbeddingResponse:
        return _embed(kwargs)

    async def aembedding(self, *args: Any, **kwargs: Any) -> EmbeddingResponse:
        return _embed(kwargs)


def _embed(kwargs: dict[str, Any]) -> EmbeddingResponse:
    """An embedding call: each input answered by the first rule matching it (its next
    response, an ``embedding``); a scripted error for any input fails the whole call."""
    name = str(kwargs.get("model", ""))
    inputs = [str(text) for text in kwargs.get("input") or []]
    record: dict[str, Any] = {"pid": os.getpid(), "model": f"{PROVIDER}/{name}",
                              "input": inputs, "rule": [], "step": []}
    try:
        script = current_script()
    except FakeScriptError as exc:
        record_call({**record, "outcome": "script_error"})
        raise BadRequestError(str(exc), model=name, llm_provider=PROVIDER) from None
    ensure_prices(script)
    if name not in script.models:
        record_call({**record, "outcome": "script_error"})
        raise NotFoundError(f"fake/{name} is not in the fake script", model=name,
                            llm_provider=PROVIDER)
    steps: list[Step] = []
    preflight = inputs == [PREFLIGHT_PROMPT]
    if preflight:
        record["preflight"] = True
    for text in inputs:
        rule = script.choose(name, text, explicit=preflight)
        if rule is None and preflight:
            steps.append(Step(embedding=PREFLIGHT_VECTOR))
            continue
        if rule is None:
            record_call({**record, "outcome": "script_error"})
            raise BadRequestError(f"no rule of fake/{name} matches an embedding input; add a "
                                  "rule without \"match\" as a fallback", model=name,
                                  llm_provider=PROVIDER)
        index, step = next_step(script, name, rule)
        record["rule"].append(rule)
        record["step"].append(index)
        steps.append(step)
    failed = next((step for step in steps if step.error is not None), None)
    if failed is not None:
        assert failed.error is not None
        record_call({**record, "outcome": failed.error})
        raise scripted_error(failed.error, name, retry_after=failed.retry_after,
                             api_base=kwargs.get("api_base"))
    if any(step.embedding is None for step in steps):
        record_call({**record, "outcome": "script_error"})
        raise BadRequestError(f"fake/{name}: a text response answers an embedding input; "
                              "script an \"embedding\" for it", model=name, llm_provider=PROVIDER)
    record_call({**record, "outcome": "embedding"})
    data = [{"object": "embedding", "index": k, "embedding": list(step.embedding or ())}
            for k, step in enumerate(steps)]
    response = EmbeddingResponse(model=name, data=data)
    if any(step.usage is not None for step in steps):
        tokens = sum(step.usage.prompt_tokens for step in steps if step.usage is not None)
        response.usage = LiteLLMUsage(prompt_tokens=tokens, total_tokens=tokens)
    return response


class _Call:
    """One call: picks its step on creation, records itself and answers (or raises) on finish."""

    def __init__(self, kwargs: dict[str, Any]) -> None:
        self.name = str(kwargs.get("model", ""))
        self.api_base: str | None = kwargs.get("api_base")
        self.messages: list[Any] = list(kwargs.get("messages") or [])
        params: dict[str, Any] = dict(kwargs.get("optional_params") or {})
        self.record: dict[str, Any] = {
            "pid": os.getpid(),
            "model": f"{PROVIDER}/{self.name}",
            "messages": self.messages,
            **{key: params.get(key) for key in
               ("temperature", "max_tokens", "max_completion_tokens", "seed", "response_format",
                "reasoning_effort")},
            "rule": None,
            "step": None,
        }
        self.step: Step | None = None
        self.problem: Exception | None = None
        try:
            script = current_script()
        except FakeScriptError as exc:
            self.problem = BadRequestError(str(exc), model=self.name, llm_provider=PROVIDER)
            return
        ensure_prices(script)
        if self.name not in script.models:
            known = ", ".join(f"fake/{name}" for name in sorted(script.models)) or "none"
            self.problem = NotFoundError(
                f"fake/{self.name} is not in the fake script (scripted models: {known})",
                model=self.name, llm_provider=PROVIDER,
            )
            return
        text = _last_user_text(self.messages)
        preflight = text == PREFLIGHT_PROMPT
        if preflight:
            self.record["preflight"] = True
        rule = script.choose(self.name, text, explicit=preflight)
        if rule is None and preflight:
            self.step = PREFLIGHT_ANSWER
            return
        if rule is None:
            self.problem = BadRequestError(
                f"no rule of fake/{self.name} matches the last user message; "
                "add a rule without \"match\" as a fallback",
                model=self.name, llm_provider=PROVIDER,
            )
            return
        index, self.step = next_step(script, self.name, rule)
        self.record.update(rule=rule, step=index)

    @contextmanager
    def in_flight(self) -> Iterator[None]:
        with STATE.lock:
            STATE.in_flight += 1
            self.record["in_flight"] = STATE.in_flight
        try:
            yield
        finally:
            with STATE.lock:
                STATE.in_flight -= 1

    def finish(self) -> ModelResponse:
        step = self.step
        if step is None:
            record_call({**self.record, "outcome": "script_error"})
            raise self.problem or RuntimeError("fake call without a step")
        record_call({**self.record, "outcome": step.outcome})
        if step.error is not None:
            where = f" (rule {self.record['rule']}, response {self.record['step']})"
            raise scripted_error(step.error, self.name, retry_after=step.retry_after, where=where,
                                 api_base=self.api_base)
        if step.text is None:
            raise BadRequestError(f"fake/{self.name}: an \"embedding\" response answers a "
                                  "completion; script a \"text\" for it", model=self.name,
                                  llm_provider=PROVIDER)
        message: dict[str, Any] = {"role": "assistant", "content": step.text}
        if step.reasoning is not None:
            message["reasoning_content"] = step.reasoning
        response: dict[str, Any] = {
            "id": f"fake-{uuid.uuid4().hex[:12]}",
            "model": self.name,
            "choices": [{"index": 0, "finish_reason": step.finish_reason, "message": message}],
        }
        if step.usage is not None:
            response["usage"] = step.usage.response_usage()
        return ModelResponse(**response)


def _last_user_text(messages: list[Any]) -> str:
    for message in reversed(messages):
        role = message.get("role") if isinstance(message, dict) else getattr(message, "role", None)
        if role != "user":
            continue
        content = message.get("content") if isinstance(message, dict) else message.content
        if isinstance(content, list):
            return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
        return str(content or "")
    return ""
