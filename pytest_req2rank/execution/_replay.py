"""Grading a HumanEval-form task by record and replay: verdicts the code under test cannot forge.

1. The reference's run of the check is recorded once per task (:mod:`._recording`).
2. The candidate runs in the sandbox on the recorded arguments only — no test code,
   no expected value, no verdict in its process — and returns what it returned,
   through the type firewall.
3. Host-decided tests (:mod:`._decompose`) are judged on the host by evaluating the
   test's own asserts on those values (:mod:`._hosteval`).
4. Other tests run the check in a *checker* execution holding no candidate code:
   each call is answered with the candidate's returned value.
A check whose calls then differ from the recorded ones returns None: the caller
grades it the in-process way. Each test's budget is ``max(timeout_s, timeout_factor
x the reference's time on it)``.
"""

from __future__ import annotations

from typing import Any

from ..models import Task, TestOutcome, TestStatus
from ..sandbox import Limits, Sandbox
from ._compare import NotPlain, decode_plain
from ._decompose import CheckPlan
from ._harness import (
    SHOWN_CHARS,
    duration_of,
    execute,
    missing_verdict,
    prompt_module,
    read_records,
    runner_request,
    show,
)
from ._hosteval import HostEvalError, evaluate
from ._recording import MODULE, SEED, RecordedTest, Recording, ReferenceCache, step_specs

TIMEOUT_FACTOR = 8.0
"""Default ``k`` of the calibrated per-test budget ``max(base, k x reference time)``."""

OUTPUT_FACTOR = 4
"""A test's outputs may take this many times the reference's bytes before they are too large."""

_FAILED: dict[str, TestStatus] = {"fail": "wrong_answer", "nonplain": "wrong_answer",
                                  "toolarge": "wrong_answer", "timeout": "timeout"}


def replay_grade(task: Task, files: dict[str, str], sandbox: Sandbox, *, timeout_s: float,
                 timeout_factor: float, cache: ReferenceCache) -> tuple[list[TestOutcome],
                                                                        float] | None:
    """The tests' outcomes and the sandbox time, or None when the task cannot be replayed."""
    plan = cache.plan(task.test or "")
    if not plan.replayable or not task.entry_point:
        return None
    recording = cache.recording(task, plan, sandbox, timeout_s=timeout_s)
    if isinstance(recording, str) or len(recording.tests) != plan.tests:
        return None
    budgets = [max(timeout_s, timeout_factor * test.seconds) for test in recording.tests]
    spec = {"mode": "calls", "module": MODULE, "entry_point": task.entry_point,
            "tests": [{"calls": [(c.args, c.kwargs) for c in test.calls], "budget": budget}
                      for test, budget in zip(recording.tests, budgets)]}
    largest = max(test.size for test in recording.tests)
    limits = Limits(output_bytes=max(Limits().output_bytes,
                                     OUTPUT_FACTOR * largest * (plan.tests + 1)))
    request, nonce = runner_request(files, spec, plan.tests, timeout_s=max(budgets),
                                    limits=limits, warm=sandbox.warm_modules)
    outcome = execute(sandbox, request)
    duration = outcome.duration_s
    records = read_records(outcome, nonce, plan.tests)
    verdicts: list[TestOutcome | None] = []
    returned: dict[int, list[Any]] = {}
    for index, (test, record) in enumerate(zip(recording.tests, records)):
        shown = plan.shown[index].strip()[:SHOWN_CHARS]
        base: dict[str, Any] = {"name": f"check[{index}]", "input": shown}
        if record is None:
            status, detail = missing_verdict(outcome)
            verdicts.append(TestOutcome(**base, status=status, detail=detail))
            continue
        values = _returned(record, test, base)
        if isinstance(values, TestOutcome):
            verdicts.append(values)
        elif index in plan.host_tests:
            verdicts.append(_host_verdict(plan, test, values, base))
        else:
            verdicts.append(None)
            returned[index] = values
    if returned:
        checked = _checker(task, plan, recording, returned, sandbox, timeout_s)
        if checked is None:
            return None
        found, seconds = checked
        duration += seconds
        verdicts = [found.get(i, v) for i, v in enumerate(verdicts)]
    tests = [v if v is not None else TestOutcome(name=f"check[{i}]", status="runtime_error",
                                                 detail="the checker reported nothing")
             for i, v in enumerate(verdicts)]
    for test_outcome, record in zip(tests, records):
        if record is not None:
            test_outcome.duration_s = duration_of(record)
    return tests, duration


def _returned(record: dict[str, Any], test: RecordedTest,
              base: dict[str, Any]) -> list[Any] | TestOutcome:
    """The candidate's decoded outputs for every call of the test, or the test's failure
    (``base``: its name and input)."""
    status = str(record.get("status"))
    detail = _text(record.get("detail"))
    if status != "pass":
        raised = record.get("raised")
        raised = raised if isinstance(raised, list) else []
        verdict: TestStatus = "wrong_answer" if "AssertionError" in raised else _FAILED.get(
            status, "runtime_error")
        if status == "nonplain":
            detail = detail or "returned a non-plain value"
        return TestOutcome(**base, status=verdict, detail=detail[:SHOWN_CHARS * 4])
    outputs = record.get("o")
    if type(outputs) is not list or len(outputs) != len(test.calls):
        return TestOutcome(**base, status="runtime_error",
                           detail="the run did not report every call of this test")
    try:
        return [decode_plain(value) for value in outputs]
    except NotPlain as exc:
        return TestOutcome(**base, status="wrong_answer",
                           detail=f"returned a non-plain value ({exc})")


def _host_verdict(plan: CheckPlan, test: RecordedTest, values: list[Any],
                  base: dict[str, Any]) -> TestOutcome:
    for instance in test.instances:
        sites = {site: values[call] for site, call in instance.sites.items()}
        host = plan.asserts[instance.key]
        try:
            holds = evaluate(host, sites, instance.leaves)
        except HostEvalError as exc:
            return TestOutcome(**base, status="runtime_error", detail=str(exc))
        if not holds:
            calls = sorted(instance.sites.values())
            return TestOutcome(
                **base, status="wrong_answer", detail=f"assertion failed: assert {host.source}"
                [:SHOWN_CHARS],
                actual=show(values[calls[0]]) if calls else None,
                expected=show(test.calls[calls[0]].expected) if calls else None)
    return TestOutcome(**base, status="success")


def _checker(task: Task, plan: CheckPlan, recording: Recording, returned: dict[int, list[Any]],
             sandbox: Sandbox, timeout_s: float) -> tuple[dict[int, TestOutcome], float] | None:
    """Judge the non-host tests in an execution without candidate code; None if one diverged."""
    judged = frozenset(returned)
    oracle = {index: [(call.tagged, value) for call, value in
                      zip(recording.tests[index].calls, values)]
              for index, values in returned.items()}
    skip = frozenset(range(plan.tests)) - judged
    spec = {"mode": "checker", "prompt": prompt_module(task.prompt), "test": task.test,
            "seed": SEED, "steps": step_specs(plan, skip), "judge": sorted(judged),
            "oracle": oracle}
    request, nonce = runner_request({}, spec, plan.tests, timeout_s=timeout_s,
                                    warm=sandbox.warm_modules)
    outcome = execute(sandbox, request)
    records = read_records(outcome, nonce, plan.tests)
    found: dict[int, TestOutcome] = {}
    for index in judged:
        shown = plan.shown[index].strip()[:SHOWN_CHARS]
        base: dict[str, Any] = {"name": f"check[{index}]", "input": shown}
        record = records[index]
        if record is None:
            missing, why = missing_verdict(outcome)
            found[index] = TestOutcome(**base, status=missing, detail=f"checker: {why}")
            continue
        kind = str(record.get("status"))
        detail = _text(record.get("detail"))
        if detail == "diverged":
            return None
        status: TestStatus = "success" if kind == "pass" else _FAILED.get(kind, "runtime_error")
        if kind == "fail":
            detail = f"assertion failed: {shown.splitlines()[0]}"
        found[index] = TestOutcome(**base, status=status, detail=detail[:SHOWN_CHARS * 4])
    return found, outcome.duration_s


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
