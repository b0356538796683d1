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
from litellm.types.utils import ModelResponse

from ._failures import scripted_error
from ._prices import ensure_prices
from ._script import FAKE_PROVIDER as PROVIDER
from ._script import FakeScriptError, Step
from ._state import STATE, current_script, next_step, record_call


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


class _Call:
    """One call: picks its step on creation, records itself and answers (or raises) on finish."""

    def __init__(self, kwargs: dict[str, Any]) -> None:
        self.name = str(kwargs.get("model", ""))
        self.messages: list[Any] = list(kwargs.get("messages") or [])
        params: dict[str, Any] = dict(kwargs.get("optional_params") or {})
        self.record: dict[str, Any] = {
            "pid": os.getpid(),
            "model": f"{PROVIDER}/{self.name}",
            "messages": self.messages,
            **{key: params.get(key) for key in
               ("temperature", "max_tokens", "seed", "response_format")},
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
        rule = script.choose(self.name, _last_user_text(self.messages))
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
            raise scripted_error(step.error, self.name, retry_after=step.retry_after, where=where)
        response: dict[str, Any] = {
            "id": f"fake-{uuid.uuid4().hex[:12]}",
            "model": self.name,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": step.text}}],
        }
        if step.usage is not None:
            response["usage"] = {**step.usage.model_dump(), "total_tokens":
                                 step.usage.prompt_tokens + step.usage.completion_tokens}
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
