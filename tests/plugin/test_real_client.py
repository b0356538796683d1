"""The real LiteLLM and OpenAI clients against a loopback server speaking OpenAI's chat API
(tests/openai_standin.py), not the scripted fake: a dead port, a refused key, the other
refusals, and a served run whose preflight is counted.

Runs in-process (tests/conftest.py keeps litellm across them); only loopback is reached.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_req2rank.providers import PREFLIGHT_MAX_TOKENS, PREFLIGHT_PROMPT

sys.path.insert(0, str(Path(__file__).parents[1]))
from openai_standin import (
    NO_ACCESS,
    QUOTA,
    REFUSED_KEY,
    UNKNOWN_MODEL,
    Answer,
    dead_port,
    openai_standin,
)

TASKS = 3
BOUND_S = 60.0


def _task(n: int) -> dict[str, Any]:
    return {"task_id": f"add{n}", "entry_point": f"add{n}",
            "prompt": f"def add{n}(a, b):\n    \"\"\"Return a + b + {n}.\"\"\"\n",
            "canonical_solution": f"    return a + b + {n}\n",
            "test": f"def check(candidate):\n    assert candidate(1, 2) == {3 + n}\n"}


@pytest.fixture
def bench(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.Pytester]:
    (pytester.path / "suite.jsonl").write_text(
        "".join(json.dumps(_task(n)) + "\n" for n in range(TASKS)))
    monkeypatch.chdir(pytester.path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    yield pytester


def run(bench: pytest.Pytester, api_base: str, *extra: str) -> tuple[pytest.RunResult, float]:
    started = time.perf_counter()
    result = bench.runpytest("--r2r-suite=jsonl:suite.jsonl", "--r2r-model=openai/x",
                             f"--r2r-api-base={api_base}", "--r2r-judges=none",
                             "--r2r-json=results.json", "-p", "no:xdist", *extra)
    return result, time.perf_counter() - started


def errors(result: pytest.RunResult) -> list[str]:
    return [line for line in result.errlines if line.startswith("ERROR:")]


def test_a_dead_port_is_named_in_one_line(bench: pytest.Pytester) -> None:
    base = f"http://127.0.0.1:{dead_port()}/v1"
    result, wall = run(bench, base)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    (line,) = errors(result)
    assert line.startswith(f"ERROR: --r2r-model: openai/x: cannot connect to {base}/chat/completions (")
    assert "Connect call failed" in line or "Connection refused" in line
    assert line.endswith("(gave up after 4 attempts); start the server or fix --r2r-api-base")
    assert not (bench.path / "results.json").exists()
    assert wall < BOUND_S


def test_a_refused_key_is_one_line_after_one_request(bench: pytest.Pytester,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-wrong-0123456789")
    with openai_standin(lambda body: REFUSED_KEY) as server:
        result, wall = run(bench, server.url)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert errors(result) == [
        ("ERROR: --r2r-model: openai/x: credentials missing or refused (AuthenticationError: "
        "OpenAIException - Incorrect API key provided: sk-***. You can find your API key at "
        "https://platform.openai.com/account/api-keys.); the key in OPENAI_API_KEY was refused "
        "or is wrong: set a valid one")]
    (request,) = server.requests
    assert request["authorization"] == "Bearer sk-test-wrong-0123456789"
    assert request["body"]["messages"] == [{"role": "user", "content": PREFLIGHT_PROMPT}]
    assert request["body"]["max_tokens"] == PREFLIGHT_MAX_TOKENS
    assert wall < BOUND_S


def test_a_keyless_server_that_wants_a_key_says_which_variable(bench: pytest.Pytester) -> None:
    with openai_standin(lambda body: REFUSED_KEY) as server:
        result, _ = run(bench, server.url)
    (line,) = errors(result)
    assert line.endswith(f"the server at {server.url} wants a key: set OPENAI_API_KEY to it")
    assert len(server.requests) == 1


@pytest.mark.parametrize(("answer", "what"), [
    # OpenAI's 403 for a project without the model carries code model_not_found, which
    # LiteLLM turns into a NotFoundError: the status says what it is
    (NO_ACCESS, "the provider denies this key access to the model (NotFoundError: "),
    (UNKNOWN_MODEL, "the provider at {url} does not know this model (NotFoundError: "),
    (QUOTA, "the account's quota is exhausted (RateLimitError: "),
])
def test_each_refusal_is_its_own_line_without_retries(bench: pytest.Pytester, answer: Answer,
                                                      what: str) -> None:
    with openai_standin(lambda body: answer) as server:
        result, wall = run(bench, server.url)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    (line,) = errors(result)
    assert line.startswith(f"ERROR: --r2r-model: openai/x: {what.format(url=server.url)}")
    assert answer[1]["error"]["message"][:40] in line
    assert len(server.requests) == 1 and wall < BOUND_S


def test_a_served_run_is_preflighted_and_counts_it(bench: pytest.Pytester) -> None:
    with openai_standin() as server:
        result, _ = run(bench, server.url)
    result.assert_outcomes(passed=TASKS)
    first, *items = server.requests
    assert first["body"]["messages"][-1]["content"] == PREFLIGHT_PROMPT
    assert first["body"]["max_tokens"] == PREFLIGHT_MAX_TOKENS
    assert len(items) == TASKS and all(r["path"] == "/v1/chat/completions" for r in items)
    summary = json.loads((bench.path / "results.json").read_text())["summary"]
    assert summary["totals_by_role"]["preflight"]["calls"] == 1
    assert summary["totals_by_role"]["preflight"]["prompt_tokens"] == 9
    assert summary["totals_by_role"]["target"]["calls"] == TASKS
