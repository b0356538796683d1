"""A LiteLLM model as a judge: one deterministic JSON request per item."""

from __future__ import annotations

import time
from collections.abc import Mapping
from functools import cache

from ..models import JudgeVerdict, Usage
from ..providers import (
    AnswerSchema,
    CompletionRequest,
    Provider,
    ProviderConfigError,
    ProviderError,
    strict_answer_schema,
    usage_of,
)
from ._answer import InvalidAnswer, judge_answer_schema, parse_judge_answer
from ._case import Judge, JudgeCase, weighted_overall
from ._prompt import JUDGE_PROMPT_VERSION, judge_messages


@cache
def judge_request_schema() -> AnswerSchema:
    """The judge answer schema as structured output asks for it (strict-mode form)."""
    return strict_answer_schema("judge_answer", judge_answer_schema())


class LLMJudge(Judge):
    """Asks ``provider`` for the five scores at temperature 0 with ``seed``, as structured
    output with the answer's JSON Schema where the provider enforces one, in JSON mode
    elsewhere; every answer is validated here all the same.

    The judge prompt version is the request's ``cache_tag``, so a changed
    prompt is never answered from the response cache. ``weights`` are the
    dimension weights shown in the prompt and used for the verdict's overall.
    """

    def __init__(
        self,
        provider: Provider,
        *,
        seed: int | None = None,
        timeout_s: float = 120.0,
        max_tokens: int = 2048,
        weights: Mapping[str, float] | None = None,
    ) -> None:
        self.provider = provider
        self.name = provider.model
        self.seed = seed
        self.timeout_s = timeout_s
        self.max_tokens = max_tokens
        self.weights = weights

    @property
    def offline(self) -> bool:
        return self.provider.offline

    def close(self) -> None:
        self.provider.close()

    def request(self, case: JudgeCase) -> CompletionRequest:
        """The completion request for ``case``."""
        return CompletionRequest(
            messages=judge_messages(case, self.weights),
            max_tokens=self.max_tokens,
            temperature=0.0,
            seed=self.seed,
            timeout_s=self.timeout_s,
            json_mode=True,
            answer_schema=judge_request_schema(),
            cache_tag=JUDGE_PROMPT_VERSION,
        )

    def judge(self, case: JudgeCase) -> JudgeVerdict:
        started = time.perf_counter()
        try:
            completion = self.provider.complete(self.request(case))
        except (ProviderError, ProviderConfigError) as exc:
            latency = time.perf_counter() - started
            if isinstance(exc, ProviderError):
                error, attempts = f"{exc.kind}: {exc.message}", exc.attempts
            else:
                error, attempts = f"config_error: {exc}", 0
            usage = Usage(calls=attempts, retries=max(attempts - 1, 0), latency_s=latency)
            return JudgeVerdict(judge=self.name, error=error, latency_s=latency, usage=usage)
        answered = JudgeVerdict(judge=self.name, raw=completion.text,
                                latency_s=completion.latency_s, usage=usage_of(completion))
        try:
            answer = parse_judge_answer(completion.text)
        except InvalidAnswer as exc:
            return answered.model_copy(update={"error": f"invalid answer: {exc}"})
        return answered.model_copy(update={
            "scores": answer.scores, "rationale": answer.rationale,
            "overall": weighted_overall(answer.scores, self.weights),
        })
