"""The call gate: a rate limit's wait pauses every call of that model, and only that model;
the retry loop hands the server's Retry-After to the gate; providers share the gate they are
handed (a run's)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import pytest

from pytest_req2rank.providers import (
    CallGate,
    LiteLLMProvider,
    ProviderConfigError,
    RetryPolicy,
    resolve_provider,
)
from pytest_req2rank.providers._retry import call_with_retries


class RateLimitError(Exception):
    """Recognised by class name, as litellm's and openai's are."""

    def __init__(self, retry_after: str) -> None:
        super().__init__("429 slow down")
        self.status_code = 429
        self.headers = {"retry-after": retry_after}


def test_a_pause_holds_the_models_calls_and_no_other() -> None:
    async def scenario() -> tuple[bool, bool]:
        gate = CallGate(slots=4)
        gate.pause("fake/a", 60.0)
        waiting = asyncio.create_task(gate.wait("fake/a"))
        other = asyncio.create_task(gate.wait("fake/b"))
        await asyncio.sleep(0.05)
        held, free = not waiting.done(), other.done()
        waiting.cancel()
        return held, free

    assert asyncio.run(scenario()) == (True, True)


def test_a_shorter_pause_does_not_shorten_a_longer_one() -> None:
    gate = CallGate(slots=1)
    gate.pause("m", 60.0)
    gate.pause("m", 0.0)

    async def still_held() -> bool:
        waiting = asyncio.create_task(gate.wait("m"))
        await asyncio.sleep(0.05)
        held = not waiting.done()
        waiting.cancel()
        return held

    assert asyncio.run(still_held())


def test_the_slots_cap_calls_in_flight() -> None:
    async def peak() -> int:
        gate, current, highest = CallGate(slots=3), 0, 0

        async def call() -> None:
            nonlocal current, highest
            async with gate.slot("m"):
                current += 1
                highest = max(highest, current)
                await asyncio.sleep(0.01)
                current -= 1

        await asyncio.gather(*(call() for _ in range(10)))
        return highest

    assert asyncio.run(peak()) == 3


def test_a_rate_limit_pauses_the_model_for_the_servers_retry_after() -> None:
    paused: list[tuple[str, float]] = []
    slept: list[float] = []

    class Spy:
        def pause(self, model: str, seconds: float) -> None:
            paused.append((model, seconds))

    answers: list[Any] = [RateLimitError("7"), "ok"]

    async def attempt() -> str:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return str(answer)

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    done = asyncio.run(call_with_retries(attempt, policy=RetryPolicy(), sleep=sleep,
                                         shared=(Spy(), "fake/coder")))
    assert (done.value, done.attempts) == ("ok", 2)
    assert paused == [("fake/coder", 7.0)] and slept == [7.0]


def test_providers_handed_a_gate_share_it_and_others_have_their_own() -> None:
    gate = CallGate(slots=3)
    shared = [resolve_provider("fake/a", gate=gate), LiteLLMProvider("gpt-4o", gate=gate)]
    assert all(isinstance(p, LiteLLMProvider) and p.gate is gate for p in shared)
    assert {p.concurrency for p in shared} == {3}
    alone = [LiteLLMProvider("fake/a", concurrency=2), LiteLLMProvider("fake/a", concurrency=2)]
    assert alone[0].gate is not alone[1].gate and alone[0].concurrency == 2


def test_a_gate_has_a_slot_at_least() -> None:
    with pytest.raises(ProviderConfigError, match="concurrency must be at least 1, got 0"):
        CallGate(slots=0)


def test_building_a_gate_loads_no_asyncio() -> None:
    """A run builds its gate whatever its models; a run of offline models never loads asyncio."""
    probe = ("import sys\nfrom pytest_req2rank.providers import CallGate\nCallGate(8)\n"
             "print('asyncio' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"
