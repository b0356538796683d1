"""An N-version run's diversity end to end: SDP from a scripted LLM judge per pair and MBCS
from a scripted embedding model (values, failures, usage), SDP and MBCS not measured offline,
no pass@k row, and a resume with other fault families."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _usage import SERIAL, one_line

from pytest_req2rank.providers.fake import reset_fake_state, write_fake_script
from pytest_req2rank.report import validate_results

TASK = {"task_id": "add3", "entry_point": "add3",
        "prompt": "def add3(a, b):\n    \"\"\"Return a + b + 3.\"\"\"\n",
        "canonical_solution": "    return a + b + 3\n",
        "test": "def check(candidate):\n    assert candidate(1, 2) == 6\n"
                "    assert candidate(0, 0) == 3\n"}
PLAIN = "```python\ndef add3(a, b):\n    return a + b + 3\n```"
BUILTIN = "```python\ndef add3(a, b):\n    return sum((a, b, 3))\n```"
LOOP = ("```python\ndef add3(a, b):\n    total = 3\n    for x in (a, b):\n        total += x\n"
        "    return total\n```")
JUDGE_USAGE = {"prompt_tokens": 200, "completion_tokens": 10}
PRICES = {"judge": {"input_cost_per_token": 1e-6, "output_cost_per_token": 1e-6},
          "emb": {"input_cost_per_token": 1e-7, "output_cost_per_token": 0.0}}
RUN = ("--r2r-nversion=3", "--r2r-nv-method=plain", "--r2r-suite=jsonl:suite.jsonl",
       "--r2r-model=fake/coder",
       "--r2r-seed=2", "--r2r-faults=code", "--r2r-sdp-judge=fake/judge",
       "--r2r-embedding-model=fake/emb", "--r2r-json=r.json", *SERIAL)


def _either(a: str, b: str) -> str:
    return f"(?s)({a}.*{b}|{b}.*{a})"


def _script(judge: list[dict[str, Any]], emb: list[dict[str, Any]]) -> dict[str, Any]:
    return {"models": {"coder": [{"match": "add3", "responses": [
        {"text": PLAIN}, {"text": BUILTIN}, {"text": LOOP}]}], "judge": judge, "emb": emb},
        "prices": PRICES}


GOOD = _script(
    judge=[{"match": _either(r"sum\(", "total"), "responses": [
               {"text": '{"same_approach": false}', "usage": JUDGE_USAGE}]},
           {"match": _either(r"a \+ b \+ 3", r"sum\("), "responses": [
               {"text": '```json\n{"same_approach": true}\n```', "usage": JUDGE_USAGE}]},
           {"responses": [{"text": "Both add numbers.", "usage": JUDGE_USAGE}]}],
    emb=[{"match": r"sum\(", "responses": [{"embedding": [1, 0]}]},
         {"match": "total", "responses": [{"embedding": [0, 1]}]},
         {"responses": [{"embedding": [1, 1], "usage": {"prompt_tokens": 30,
                                                        "completion_tokens": 0}}]}])
FAILING = _script(judge=[{"responses": [{"error": "timeout"}]}],
                  emb=[{"responses": [{"error": "auth"}]}])


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    (pytester.path / "suite.jsonl").write_text(json.dumps(TASK) + "\n")
    monkeypatch.chdir(pytester.path)

    def script(data: dict[str, Any]) -> None:
        env = write_fake_script(pytester.path / "script.json", data,
                                log_path=pytester.path / "calls.jsonl")
        for name, value in env.items():
            monkeypatch.setenv(name, value)

    yield script
    reset_fake_state()


def _results(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text())
    validate_results(data)
    return data


def test_sdp_and_mbcs_are_measured_with_their_models(pytester: pytest.Pytester,
                                                     project: Any) -> None:
    project(GOOD)
    result = pytester.runpytest(*RUN)
    data = _results(pytester.path / "r.json")
    nv = data["summary"]["nversion"]
    row = nv["diversity"][0]
    assert row["sdp"] == {**row["sdp"], "status": "measured", "judge": "fake/judge", "sdp": 0.5,
                          "pairs": 3, "judged": 2, "same": 1, "parse_failures": 1,
                          "call_failures": 0}
    assert row["sdp"]["reason"].startswith("pair (")
    assert row["mbcs"] == {"status": "measured", "model": "fake/emb",
                           "mbcs": pytest.approx(2 ** 0.5 / 3, abs=1e-6), "reason": None}
    assert (nv["mean_sdp"], nv["sdp_judged"], nv["sdp_parse_failures"]) == (0.5, 2, 1)
    assert nv["mean_mbcs"] == pytest.approx(0.471405) and nv["embedding_model"] == "fake/emb"
    ensembles = [i["nversion"] for i in data["items"] if i["nversion"]["role"] == "ensemble"]
    assert all(e["sdp"] == row["sdp"] and e["mbcs"] == row["mbcs"] for e in ensembles)
    measured = [e["diversity_usage"] for e in ensembles if e["diversity_usage"]]
    assert len(measured) == 1 and measured[0]["calls"] == 4  # three pairs, one embedding call
    diversity = data["summary"]["totals_by_role"]["diversity"]
    # the judge: 3 x (200 + 10) tokens at 1e-6; the embedding: 30 tokens at 1e-7
    assert diversity == {"calls": 4, "prompt_tokens": 630, "completion_tokens": 30,
                         "reasoning_tokens": None, "cost_usd": pytest.approx(630e-6 + 3e-6)}
    assert data["summary"]["pass_at_k"] == {}
    assert not [line for line in result.outlines if "pass@k" in line]
    result.stdout.fnmatch_lines([
        ("req2rank: N-version diversity: LS, structural similarity | SDP judged by fake/judge "
         "(--r2r-sdp-judge) | MBCS by fake/emb"),
        "*diversity, mean over tasks*LS 0.* | structural (codebleu-syntax-dataflow, not MBCS)*",
        ("    SDP 0.500 by fake/judge (2/3 pairs judged, 1 unreadable answers, 0 failed calls, "
         "left out; first: pair (*): invalid answer: not JSON*"),
        "    MBCS 0.471 by fake/emb",
        "    add3 * SDP 0.500 (2/3 judged)  MBCS 0.471",
        "  diversity: 4 | prompt tokens 630 | *"])


def test_failed_judge_and_embedding_calls_are_reported_never_guessed(
        pytester: pytest.Pytester, project: Any) -> None:
    project(FAILING)
    result = pytester.runpytest(*RUN)
    nv = _results(pytester.path / "r.json")["summary"]["nversion"]
    sdp, mbcs = nv["diversity"][0]["sdp"], nv["diversity"][0]["mbcs"]
    assert (sdp["status"], sdp["sdp"], sdp["judged"], sdp["call_failures"]) == (
        "failed", None, 0, 3)
    assert sdp["reason"].startswith("pair (") and "timeout" in sdp["reason"]
    assert (mbcs["status"], mbcs["mbcs"]) == ("failed", None)
    assert "AuthenticationError" in mbcs["reason"] and nv["mean_mbcs"] is None
    assert nv["mean_sdp"] is None and nv["mbcs_failed"] == 1
    result.stdout.fnmatch_lines([
        "    SDP n/a by fake/judge (0/3 pairs judged, 0 unreadable answers, 3 failed calls*",
        "    MBCS n/a by fake/emb; 1 tasks without it, error: api_error: AuthenticationError*",
        "    add3 * SDP n/a (0/3 judged)  MBCS error"])


def test_offline_sdp_and_mbcs_are_not_measured_and_resume_names_the_faults(
        pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--r2r-nversion=2", "--r2r-sample=1", "--r2r-seed=4",
                                "--r2r-json=o.json", *SERIAL)
    result.stdout.fnmatch_lines([("req2rank: N-version diversity: LS, structural similarity | "
                                  "SDP not measured (no LLM judge: *) | MBCS not measured*")])
    data = _results(pytester.path / "o.json")
    nv = data["summary"]["nversion"]
    sdp, mbcs = nv["diversity"][0]["sdp"], nv["diversity"][0]["mbcs"]
    assert (sdp["status"], sdp["sdp"], mbcs["status"], mbcs["mbcs"]) == (
        "not_measured", None, "not_measured", None)
    assert "--r2r-sdp-judge" in sdp["reason"] and "--r2r-embedding-model" in mbcs["reason"]
    assert nv["sdp_judge"] is None and data["summary"]["totals_by_role"]["diversity"]["calls"] == 0
    assert data["summary"]["pass_at_k"] == {}
    one_line(pytester.runpytest("--r2r-nversion=2", f"--r2r-resume={data['run']['id']}",
                                "--r2r-faults=code", *SERIAL),
             f"--r2r-resume: run {data['run']['id']} was planned with "
             "--r2r-faults=code,algorithm, not code; resume it with --r2r-faults=code,algorithm")


@pytest.mark.parametrize(("args", "expected"), [
    (("--r2r-embedding-model=fake/emb",),
     "--r2r-embedding-model: applies to an N-version run only; add --r2r-nversion=N"),
    (("--r2r-sdp-judge=fake/judge",),
     "--r2r-sdp-judge: applies to an N-version run only; add --r2r-nversion=N"),
    (("--r2r-nversion=3", "--r2r-sdp-judge=r2r/static"),
     "--r2r-sdp-judge: must be a LiteLLM model string*"),
    (("--r2r-nversion=3", "--r2r-embedding-api-base=http://localhost:1"),
     "--r2r-embedding-api-base: names the server of --r2r-embedding-model; add*"),
    (("--r2r-nversion=3", "--r2r-embedding-model=fake/nobody"),
     "--r2r-embedding-model: fake/nobody is not in the fake script*"),
])
def test_bad_diversity_options_are_one_line_usage_errors(
        pytester: pytest.Pytester, project: Any, args: tuple[str, ...], expected: str) -> None:
    project(GOOD)
    one_line(pytester.runpytest(*args, *SERIAL), expected)
