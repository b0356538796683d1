"""The preflight on its own: one tiny request per model, in parallel, each failure one line
that says what, which variable or URL, and how to fix it; the fake answers it without
consuming its script."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_req2rank.providers import (
    PREFLIGHT_MAX_TOKENS,
    PREFLIGHT_PROMPT,
    CallGate,
    CompletionRequest,
    LiteLLMProvider,
    PreflightModel,
    preflight,
)
from pytest_req2rank.providers.fake import read_fake_log

Install = Callable[[dict[str, Any]], Path]
Ask = Callable[..., CompletionRequest]


def on_preflight(*responses: dict[str, Any]) -> dict[str, Any]:
    """A rule that answers the preflight's request (and nothing an item asks)."""
    return {"match": "req2rank preflight", "responses": list(responses)}


def check(*models: PreflightModel, delays: list[float] | None = None) -> Any:
    async def sleep(seconds: float) -> None:
        (delays if delays is not None else []).append(seconds)

    return preflight(models, gate=CallGate(8), timeout_s=30, sleep=sleep)


def test_a_fake_model_answers_the_preflight_without_consuming_its_script(
    fake_script: Install, ask: Ask
) -> None:
    log = fake_script({"models": {"coder": [{"responses": [{"text": "first"}, {"text": "second"}]}],
                                  "embedder": [{"responses": [{"embedding": [0.5, 0.5]}]}]}})
    report = check(PreflightModel("fake/coder"),
                   PreflightModel("fake/embedder", options=("--r2r-embedding-model",),
                                  embedding=True))
    assert report.problems == [] and report.usage.calls == 2
    # the two run at once: the log's order is whichever answered first
    calls = sorted(read_fake_log(log), key=lambda c: c["model"])
    assert [(c["model"], c["preflight"], c["outcome"]) for c in calls] == [
        ("fake/coder", True, "text"), ("fake/embedder", True, "embedding")]
    assert calls[0]["messages"] == [{"role": "user", "content": PREFLIGHT_PROMPT}]
    assert calls[0]["max_tokens"] == PREFLIGHT_MAX_TOKENS and calls[1]["input"] == [PREFLIGHT_PROMPT]
    # the items' script is untouched: the first item gets the first response
    assert LiteLLMProvider("fake/coder").complete(ask()).text == "first"
    assert read_fake_log(log, preflight=False)[0]["step"] == 0


def test_each_model_once_whatever_roles_it_plays_and_builtins_not_at_all(
    fake_script: Install
) -> None:
    log = fake_script({"models": {"coder": [{"responses": [{"text": "x"}]}]}})
    report = check(PreflightModel("fake/coder"),
                   PreflightModel("fake/coder", options=("--r2r-judges",)),
                   PreflightModel("r2r/reference", options=("--r2r-judges",)))
    assert [c.model.options for c in report.checks] == [("--r2r-model", "--r2r-judges")]
    assert len(read_fake_log(log)) == 1
    assert check(PreflightModel("r2r/reference")).checks == ()


@pytest.mark.parametrize(("error", "line"), [
    ("missing_key", ("--r2r-model: fake/coder: credentials missing or refused (InternalServerError: "
                    "scripted missing key for fake/coder * Missing credentials.*); set the API key "
                    "variable LiteLLM reads for this provider*")),
    ("auth", "--r2r-model: fake/coder: credentials missing or refused (AuthenticationError: *)*"),
    ("permission", ("--r2r-model: fake/coder: the provider denies this key access to the model "
                   "(PermissionDeniedError: *); use a key or project that has access*")),
    ("not_found", ("--r2r-model: fake/coder: the provider does not know this model (NotFoundError: "
                  "*); check the name*")),
    ("quota", ("--r2r-model: fake/coder: the account's quota is exhausted (RateLimitError: *You "
              "exceeded your current quota*); add credit or raise the limit*")),
    ("bad_request", ("--r2r-model: fake/coder: the provider refused the preflight's one-line "
                    "request (BadRequestError: *); *--r2r-preflight=off")),
])
def test_a_permanent_failure_is_one_line_after_one_call(
    fake_script: Install, error: str, line: str
) -> None:
    log = fake_script({"models": {"coder": [on_preflight({"error": error}),
                                            {"responses": [{"text": "x"}]}]}})
    delays: list[float] = []
    report = check(PreflightModel("fake/coder"), delays=delays)
    (problem,) = report.problems
    assert "\n" not in problem and fnmatch.fnmatch(problem, line), problem
    assert len(read_fake_log(log)) == 1 and delays == [] and report.usage.calls == 1


def test_an_unreachable_server_is_retried_then_named_with_the_option_to_fix(
    fake_script: Install
) -> None:
    log = fake_script({"models": {"emb": [on_preflight({"error": "unreachable"})]}})
    delays: list[float] = []
    report = check(PreflightModel("fake/emb", "http://127.0.0.1:9/v1", ("--r2r-embedding-model",),
                                  embedding=True, api_base_option="--r2r-embedding-api-base"),
                   delays=delays)
    assert report.problems == [
        ("--r2r-embedding-model: fake/emb: cannot connect to http://127.0.0.1:9/v1/chat/completions "
        "(APIConnectionError: Connection error.; [Errno 111] Connection refused) (gave up after 4 "
        "attempts); start the server or fix --r2r-embedding-api-base")]
    assert len(read_fake_log(log)) == 4 and delays == [1.0, 2.0, 4.0]
    assert report.usage.calls == 4 and report.usage.retries == 3


def test_a_transient_failure_is_retried_and_its_calls_counted(fake_script: Install) -> None:
    log = fake_script({"models": {"coder": [on_preflight(
        {"error": "server_error"}, {"text": "ok", "usage": {"prompt_tokens": 9,
                                                            "completion_tokens": 1}})]}})
    delays: list[float] = []
    report = check(PreflightModel("fake/coder"), delays=delays)
    assert report.problems == [] and delays == [1.0]
    assert (report.usage.calls, report.usage.retries, report.usage.prompt_tokens) == (2, 1, 9)
    assert [c["outcome"] for c in read_fake_log(log)] == ["server_error", "text"]


def test_models_are_checked_at_once_and_every_failure_is_reported(fake_script: Install) -> None:
    script = {"models": {
        "a": [on_preflight({"text": "ok", "delay_s": 0.5})],
        "b": [on_preflight({"text": "ok", "delay_s": 0.5})],
        "c": [on_preflight({"error": "auth"})],
        "d": [on_preflight({"error": "not_found"})],
    }}
    log = fake_script(script)
    report = check(*(PreflightModel(f"fake/{m}", options=(f"--r2r-{m}",)) for m in "abcd"))
    assert [p.split(":")[0] for p in report.problems] == ["--r2r-c", "--r2r-d"]
    in_flight = {c["model"]: c["in_flight"] for c in read_fake_log(log)}
    assert max(in_flight.values()) >= 2, "the models were checked one after another"


def test_a_missing_key_is_named_without_any_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    report = check(PreflightModel("gpt-4o"), PreflightModel("text-embedding-3-small",
                                                            options=("--r2r-embedding-model",),
                                                            embedding=True))
    assert report.problems == [
        ("--r2r-model: gpt-4o: no API key: LiteLLM reads OPENAI_API_KEY for this model, and it "
        "is not set; set it (no call was made)"),
        ("--r2r-embedding-model: text-embedding-3-small: no API key: LiteLLM reads "
        "OPENAI_API_KEY for this model, and it is not set; set it (no call was made)")]
    assert report.usage.calls == 0
