"""The preflight: before the first item, one tiny real request to every model the run calls.

For each model (once, whatever roles it plays): LiteLLM's ``validate_environment`` names
the credentials it needs, without a network call; then one completion of at most
:data:`PREFLIGHT_MAX_TOKENS` tokens (an embedding of one short text for an embedding model),
through the adapter's usual retries, all models at once on the providers' event loop. A
failure is one line naming the option, the model, what is wrong (the provider's own
words), which variable or URL, and how to fix it. Offline built-ins (``r2r/…``) are not
checked. The calls bypass the response cache; their usage is reported on its own.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..models import DEFAULT_CONCURRENCY, ModelSpec, Usage
from ._base import (
    PREFLIGHT_PROMPT,
    CompletionRequest,
    Message,
    ProviderConfigError,
    ProviderError,
    usage_of,
)
from ._gate import CallGate
from ._litellm import LiteLLMProvider
from ._retry import RetryPolicy, Sleep

PREFLIGHT_MAX_TOKENS = 5
"""Enough for "ok"; a model that spends them on reasoning still answered."""


class _PreflightProvider(LiteLLMProvider):
    """The adapter sending the preflight's budget as it is: an item's answer gets a reasoning
    model's thinking budget on top (:meth:`.ModelParameters.budget`), the preflight's
    "ok" does not need it. No reasoning effort is asked, so no provider's extended thinking
    (Anthropic's, which refuses a budget below its own) is switched on."""

    def request_kwargs(self, request: CompletionRequest) -> dict[str, Any]:
        return {**super().request_kwargs(request), "max_tokens": request.max_tokens}


@dataclass(frozen=True)
class PreflightModel:
    """A model the run calls, the options that name it, and where it is served."""

    model: str
    api_base: str | None = None
    options: tuple[str, ...] = ("--r2r-model",)
    embedding: bool = False
    api_base_option: str = "--r2r-api-base"


@dataclass(frozen=True)
class PreflightCheck:
    """One model's preflight: what it cost, how long it took, and the problem line, if any."""

    model: PreflightModel
    usage: Usage
    latency_s: float
    problem: str | None = None


@dataclass(frozen=True)
class PreflightReport:
    """Every model's check, and the wall time of them all."""

    checks: tuple[PreflightCheck, ...] = ()
    wall_s: float = 0.0
    usage: Usage = field(default_factory=Usage)

    @property
    def problems(self) -> list[str]:
        return [check.problem for check in self.checks if check.problem]


class PreflightFailed(ProviderConfigError):
    """Some models cannot be called; one line each (:attr:`lines`)."""

    def __init__(self, lines: Sequence[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = list(lines)


def merge_models(entries: Iterable[PreflightModel]) -> list[PreflightModel]:
    """One entry per model, endpoint and kind, naming every option that asks for it;
    offline built-ins left out."""
    merged: dict[tuple[str, str | None, bool], PreflightModel] = {}
    for entry in entries:
        if ModelSpec.parse(entry.model).is_builtin:
            continue
        key = (entry.model, entry.api_base, entry.embedding)
        known = merged.get(key)
        if known is None:
            merged[key] = entry
        elif not set(entry.options) <= set(known.options):
            merged[key] = PreflightModel(
                known.model, known.api_base,
                (*known.options, *(o for o in entry.options if o not in known.options)),
                known.embedding, known.api_base_option)
    return list(merged.values())


def preflight(models: Iterable[PreflightModel], *, timeout_s: float, gate: CallGate | None = None,
              policy: RetryPolicy | None = None, sleep: Sleep | None = None) -> PreflightReport:
    """Check every model (see the module docstring), the calls through ``gate`` (a run's;
    else one of the default size); never raises for a model's failure
    (:meth:`PreflightReport.problems` says), only :class:`ProviderConfigError` for a model
    LiteLLM cannot route."""
    from ._loop import run_sync  # asyncio, only when a remote model is checked

    entries = merge_models(models)
    if not entries:
        return PreflightReport()
    started = time.perf_counter()
    gate = gate if gate is not None else CallGate(DEFAULT_CONCURRENCY)
    providers = [_PreflightProvider(entry.model, api_base=entry.api_base, gate=gate,
                                    policy=policy, sleep=sleep)
                 for entry in entries]
    for provider in providers:
        provider.validate()  # imports litellm here, not on the providers' loop
    checks = run_sync(_check_all(entries, providers, timeout_s))
    return PreflightReport(checks=tuple(checks), wall_s=time.perf_counter() - started,
                           usage=sum((check.usage for check in checks), Usage()))


async def _check_all(entries: Sequence[PreflightModel], providers: Sequence[LiteLLMProvider],
                     timeout_s: float) -> list[PreflightCheck]:
    import asyncio  # running on the providers' loop already

    return list(await asyncio.gather(*(
        _check(entry, provider, timeout_s) for entry, provider in zip(entries, providers))))


async def _check(entry: PreflightModel, provider: LiteLLMProvider, timeout_s: float
                 ) -> PreflightCheck:
    missing = provider.missing_credentials()
    if missing:
        return PreflightCheck(entry, Usage(), 0.0, _line(
            entry, f"no API key: LiteLLM reads {' or '.join(missing)} for this model, and it "
            f"is not set; set it (no call was made)"))
    started = time.perf_counter()
    try:
        if entry.embedding:
            usage = (await provider.aembed([PREFLIGHT_PROMPT], timeout_s=timeout_s)).usage
        else:
            usage = usage_of(await provider.acomplete(CompletionRequest(
                messages=(Message(role="user", content=PREFLIGHT_PROMPT),),
                max_tokens=PREFLIGHT_MAX_TOKENS, temperature=0.0, timeout_s=timeout_s)))
    except ProviderError as error:
        usage = Usage(calls=error.attempts, retries=max(error.attempts - 1, 0))
        return PreflightCheck(entry, usage, time.perf_counter() - started,
                              _line(entry, _explain(entry, provider, error)))
    return PreflightCheck(entry, usage, time.perf_counter() - started)


def _line(entry: PreflightModel, text: str) -> str:
    return f"{' and '.join(entry.options)}: {entry.model}: {text}"


def _explain(entry: PreflightModel, provider: LiteLLMProvider, error: ProviderError) -> str:
    """What is wrong, in the provider's words, and how to fix it."""
    message = error.message.removeprefix(f"{entry.model}: ")
    cause = error.cause
    if cause == "credentials":
        return f"credentials missing or refused ({message}); {_key_hint(provider)}"
    if cause == "permission":
        return (f"the provider denies this key access to the model ({message}); use a key or "
                "project that has access, or another model")
    if cause == "not_found":
        where = f" at {entry.api_base}" if entry.api_base else ""
        return (f"the provider{where} does not know this model ({message}); check the name "
                "(LiteLLM's spelling: PROVIDER/MODEL, e.g. anthropic/claude-sonnet-4-5)")
    if cause == "quota":
        return (f"the account's quota is exhausted ({message}); add credit or raise the "
                "limit with the provider, then run again")
    if cause == "unreachable":
        fix = (f"start the server or fix {entry.api_base_option}" if entry.api_base else
               f"check the network, or set {entry.api_base_option} to the server to use")
        return f"{message}; {fix}"
    if cause in ("bad_request", "context_window", "content_policy"):
        return (f"the provider refused the preflight's one-line request ({message}); if this "
                "model cannot answer a plain request, skip the check with --r2r-preflight=off")
    return (f"no answer ({message}); try again later, or skip the check with "
            "--r2r-preflight=off")


def _key_hint(provider: LiteLLMProvider) -> str:
    """Which variable to fix: the key a keyless server got in place of one, or the
    provider's key variables that are set."""
    if provider.endpoint_kwargs().get("api_key"):
        return f"the server at {provider.api_base} wants a key: set OPENAI_API_KEY to it"
    named = provider.credential_variables()
    if named:
        return f"the key in {' / '.join(named)} was refused or is wrong: set a valid one"
    return "set the API key variable LiteLLM reads for this provider (its docs name it)"
