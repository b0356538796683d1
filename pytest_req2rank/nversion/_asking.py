"""The generation pipeline's model calls: each one seeded by its place in the run, its usage
counted on the state machine, and a checked call retried with its error fed back."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ..draws import sample_seed
from ..execution import RunOptions
from ..models import Task, Usage
from ..providers import CompletionRequest, Message, Provider, ProviderError, usage_of
from ._answers import AnswerError
from ._fsm import StateMachine
from ._prompting import PROMPT_VERSION, SYSTEM, with_feedback

T = TypeVar("T")


class Asker:
    """Asks ``provider`` on behalf of one task's pipeline; call k gets the seed
    ``sample_seed(run seed, k)``, so a rerun asks the same questions with the same seeds (and a
    resumed run's response cache answers them)."""

    def __init__(self, provider: Provider, task: Task, options: RunOptions,
                 machine: StateMachine) -> None:
        self.provider, self.task, self.options, self.machine = provider, task, options, machine
        self.calls = 0
        self.last_prompt = self.last_answer = ""

    def text(self, prompt: str, *, temperature: float, json_mode: bool = False) -> str:
        """One answer to ``prompt``; raises ``ProviderError`` when the provider fails."""
        request = CompletionRequest(
            messages=(Message(role="system", content=SYSTEM),
                      Message(role="user", content=prompt)),
            max_tokens=self.options.max_tokens,
            temperature=max(temperature, self.options.temperature),
            seed=sample_seed(self.options.seed, self.calls), timeout_s=self.options.api_timeout_s,
            json_mode=json_mode, task=self.task, cache_tag=PROMPT_VERSION)
        self.calls += 1
        self.last_prompt = prompt
        try:
            completion = self.provider.complete(request)
        except ProviderError as exc:
            self.machine.spend(Usage(calls=exc.attempts, retries=max(exc.attempts - 1, 0)))
            raise
        self.machine.spend(usage_of(completion))
        self.last_answer = completion.text
        return completion.text

    def checked(self, prompt: str, parse: Callable[[str], T], *, temperature: float,
                json_mode: bool = False) -> T:
        """The parsed answer to ``prompt``; an answer ``parse`` rejects is a retry with the
        error fed back (``RetryBoundReached`` past the bound)."""
        asked, attempt = prompt, 0
        while True:
            answer = self.text(asked, temperature=temperature, json_mode=json_mode)
            try:
                return parse(answer)
            except AnswerError as exc:
                attempt += 1
                self.machine.retry(str(exc), attempt)
                asked = with_feedback(prompt, str(exc))
