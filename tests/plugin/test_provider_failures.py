"""A run against a model that cannot answer, through pytest with the scripted fake: the
preflight stops it before the first item (exit 4, one line per model), a transient failure
is retried, a model that starts failing for good mid-run stops the run (exit 8) with the
finished items kept, and a generator that fails is counted.

Runs that call litellm run in-process (tests/conftest.py keeps litellm across them). Wall
times are bounded generously: "seconds rather than minutes", on a busy machine.
"""

from __future__ import annotations

import fnmatch
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _store_runs import count_rows

from pytest_req2rank.providers import PREFLIGHT_PROMPT
from pytest_req2rank.providers.fake import read_fake_log, reset_fake_state, write_fake_script

TASKS = 6
STOPPED_EXIT = 8
BOUND_S = 60.0
"""A run that fails fast ends within this, where grinding through its items would take minutes
(the -n 2 run gets three times as long: each worker imports litellm first, 3-13 s measured on
a loaded machine; its calls, counted, are the sharper check)."""
RUN = ("--r2r-suite=jsonl:suite.jsonl", "--r2r-model=fake/coder", "--r2r-seed=5",
       "--r2r-judges=none", "--r2r-db=store.db", "--r2r-json=results.json")


def _task(n: int) -> dict[str, Any]:
    return {"task_id": f"add{n}", "entry_point": f"add{n}",
            "prompt": f"def add{n}(a, b):\n    \"\"\"Return a + b + {n}.\"\"\"\n",
            "canonical_solution": f"    return a + b + {n}\n",
            "test": f"def check(candidate):\n    assert candidate(1, 2) == {3 + n}\n"}


def _answer(n: int) -> dict[str, Any]:
    return {"match": f"def add{n}\\(", "responses": [
        {"text": f"```python\ndef add{n}(a, b):\n    return a + b + {n}\n```",
         "usage": {"prompt_tokens": 40, "completion_tokens": 12}}]}


def on_preflight(*responses: dict[str, Any]) -> dict[str, Any]:
    return {"match": "req2rank preflight", "responses": list(responses)}


@pytest.fixture
def bench(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.Pytester]:
    (pytester.path / "suite.jsonl").write_text(
        "".join(json.dumps(_task(n)) + "\n" for n in range(TASKS)))
    monkeypatch.chdir(pytester.path)
    yield pytester
    reset_fake_state()


def install(bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, models: dict[str, Any]
            ) -> Path:
    log = bench.path / "calls.jsonl"
    env = write_fake_script(bench.path / "script.json", {"models": models}, log_path=log)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return log


def timed(bench: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, float]:
    started = time.perf_counter()
    result = bench.runpytest(*args)
    return result, time.perf_counter() - started


def errors(result: pytest.RunResult) -> list[str]:
    return [line for line in result.errlines if line.startswith("ERROR:")]


@pytest.mark.parametrize(("error", "calls", "line"), [
    ("missing_key", 1, ("ERROR: --r2r-model: fake/coder: credentials missing or refused "
                       "(InternalServerError: scripted missing key for fake/coder *Missing "
                       "credentials.*); set the API key variable*")),
    ("not_found", 1, ("ERROR: --r2r-model: fake/coder: the provider at http://127.0.0.1:9/v1 "
                     "does not know this model (NotFoundError: *); check the name*")),
    ("quota", 1, ("ERROR: --r2r-model: fake/coder: the account's quota is exhausted "
                 "(RateLimitError: *exceeded your current quota*); add credit*")),
    # retried (1 + 2 + 4 s of backoff), then the URL tried and the option to fix
    ("unreachable", 4, ("ERROR: --r2r-model: fake/coder: cannot connect to "
                       "http://127.0.0.1:9/v1/chat/completions (APIConnectionError: Connection "
                       "error.; [[]Errno 111] Connection refused) (gave up after 4 attempts); "
                       "start the server or fix --r2r-api-base")),
])
def test_a_model_that_cannot_answer_stops_the_run_before_its_first_item(
    bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, error: str, calls: int, line: str
) -> None:
    log = install(bench, monkeypatch, {"coder": [on_preflight({"error": error}),
                                                 *(_answer(n) for n in range(TASKS))]})
    result, wall = timed(bench, *RUN, "--r2r-api-base=http://127.0.0.1:9/v1", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    (message,) = errors(result)
    assert fnmatch.fnmatch(message, line), message
    made = read_fake_log(log)
    assert len(made) == calls and all(call["preflight"] for call in made), "an item ran"
    assert not (bench.path / "results.json").exists()
    assert wall < BOUND_S


def test_every_failing_model_has_its_line_and_the_generator_is_checked(
    bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = install(bench, monkeypatch, {
        "coder": [{"responses": [{"text": "x"}]}],
        "gen": [on_preflight({"error": "auth"})],
        "judge": [on_preflight({"error": "permission"})],
    })
    result, wall = timed(bench, "--r2r-suite=dynamic", "--r2r-rounds=2", "--r2r-model=fake/coder",
                         "--r2r-generator=fake/gen", "--r2r-judges=fake/judge", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    lines = errors(result)
    assert [line.split(": ")[1:3] for line in lines] == [
        ["--r2r-generator", "fake/gen"], ["--r2r-judges", "fake/judge"]]
    assert "credentials missing or refused (AuthenticationError" in lines[0]
    assert "denies this key access to the model (PermissionDeniedError" in lines[1]
    assert sorted(call["model"] for call in read_fake_log(log)) == [
        "fake/coder", "fake/gen", "fake/judge"]
    assert wall < BOUND_S


def test_a_transient_failure_at_preflight_is_retried_and_counted(
    bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = install(bench, monkeypatch, {"coder": [
        on_preflight({"error": "server_error"},
                     {"text": "ok", "usage": {"prompt_tokens": 9, "completion_tokens": 1}}),
        *(_answer(n) for n in range(TASKS))]})
    result, wall = timed(bench, *RUN, "-p", "no:xdist")
    result.assert_outcomes(passed=TASKS)
    preflight = read_fake_log(log, preflight=True)
    assert [call["outcome"] for call in preflight] == ["server_error", "text"]
    assert preflight[0]["messages"][-1]["content"] == PREFLIGHT_PROMPT
    assert len(read_fake_log(log, preflight=False)) == TASKS
    summary = json.loads((bench.path / "results.json").read_text())["summary"]
    assert summary["totals_by_role"]["preflight"] == {
        "calls": 2, "prompt_tokens": 9, "completion_tokens": 1, "reasoning_tokens": None,
        "cost_usd": None}
    assert summary["totals_by_role"]["target"]["calls"] == TASKS
    assert summary["totals"]["calls"] == TASKS + 2
    result.stdout.fnmatch_lines([f"model calls {TASKS + 2} *", "  preflight: 2 *"])
    assert wall < BOUND_S


def test_preflight_off_makes_no_such_call(bench: pytest.Pytester,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    log = install(bench, monkeypatch, {"coder": [on_preflight({"error": "auth"}),
                                                 *(_answer(n) for n in range(TASKS))]})
    result = bench.runpytest(*RUN, "--r2r-preflight=off", "-p", "no:xdist")
    result.assert_outcomes(passed=TASKS)
    assert read_fake_log(log, preflight=True) == []
    summary = json.loads((bench.path / "results.json").read_text())["summary"]
    assert "preflight" not in summary["totals_by_role"]


def revoked_after(answered: int) -> dict[str, Any]:
    """``fake/coder``: the preflight passes, the first ``answered`` items are answered
    right, then the key is refused on every call."""
    answers = [{"text": f"```python\ndef add{n}(a, b):\n    return a + b + {n}\n```"}
               for n in range(answered)]
    return {"coder": [{"responses": [*answers, {"error": "auth"}]}]}


def test_a_key_revoked_mid_run_stops_it_with_the_finished_items_kept(
    bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = install(bench, monkeypatch, revoked_after(2))
    result, wall = timed(bench, *RUN, "--r2r-concurrency=1", "-p", "no:xdist")
    assert result.ret == STOPPED_EXIT
    # two answered, then three refused in a row: no call after the third
    outcomes = [call["outcome"] for call in read_fake_log(log, preflight=False)]
    assert outcomes == ["text", "text", "auth", "auth", "auth"]
    document = json.loads((bench.path / "results.json").read_text())
    assert [item["status"] for item in document["items"]] == ["success"] * 2 + ["api_error"] * 3
    assert count_rows(bench.path / "store.db", "items") == 5
    run_id = document["run"]["id"]
    reason = ("fake/coder failed 3 calls in a row (missing or refused credentials); last: "
              "AuthenticationError: scripted auth for fake/coder*")
    result.stdout.fnmatch_lines([
        f"stopped: {reason}",
        f"  5 of {TASKS} items finished and kept, 1 not run (exit code 8)",
        f"  fix the cause, then resume: pytest * --r2r-resume={run_id}",
    ])
    assert any(w.startswith("the run stopped early, because a model failed for good: fake/coder "
                            "failed 3 calls in a row") for w in document["summary"]["warnings"])
    assert wall < BOUND_S


def test_a_key_revoked_mid_run_stops_every_worker(
    bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    (bench.path / "suite.jsonl").write_text(
        "".join(json.dumps(_task(n)) + "\n" for n in range(40)))
    log = install(bench, monkeypatch, revoked_after(1))
    concurrency = 2
    result, wall = timed(bench, *RUN, f"--r2r-concurrency={concurrency}", "-n", "2")
    assert result.ret == STOPPED_EXIT, result.stdout.str()[-2000:]
    refused = [call for call in read_fake_log(log, preflight=False) if call["outcome"] == "auth"]
    # each worker: three refusals to open its breaker, and at most its calls in flight more
    workers = {call["pid"] for call in refused}
    assert len(workers) <= 2 and len(refused) <= 2 * (3 + concurrency)
    document = json.loads((bench.path / "results.json").read_text())
    assert len(document["items"]) < 40
    result.stdout.fnmatch_lines(["stopped: fake/coder failed 3 calls in a row *",
                                 "  fix the cause, then resume: pytest *--r2r-resume=*"])
    assert wall < 3 * BOUND_S


def test_a_generator_that_fails_during_the_run_is_counted_with_its_reason(
    bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The generator refuses every request (a permanent cause, though not a run-wide one):
    # each requirement falls back to its offline template variant.
    log = install(bench, monkeypatch, {"gen": [{"responses": [{"error": "bad_request"}]}]})
    result = bench.runpytest("--r2r-suite=dynamic", "--r2r-rounds=2", "--r2r-seed=3",
                             "--r2r-generator=fake/gen", "--r2r-json=results.json",
                             "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.OK
    assert len(read_fake_log(log, preflight=False)) == 2
    result.stdout.fnmatch_lines([
        # the offline target answers each item (2), the generator is refused once per
        # requirement (2), the preflight asked the generator once
        "model calls 5 *", "  target: 2 *", "  generator: 2 *", "  preflight: 1 *",
        ("warning: generator fake/gen fell back to the offline template variant for 2 of 2 "
        "requirements: 2x the generator failed: draft: api_error: BadRequestError: scripted bad "
        "request for fake/gen (rule 0, response 0)"),
    ])
    document = json.loads((bench.path / "results.json").read_text())
    assert [item["provenance"]["source"] for item in document["items"]] == ["fallback"] * 2
    assert [item["generator_usage"]["calls"] for item in document["items"]] == [1, 1]
