"""Grading requirement probes: one harness execution runs every probe and reports the values
they produced; the host compares them with ``probe.expect``, which never enters the sandbox.

Each probe's budget follows the reference's time in it (:mod:`._budget`), measured once per
requirement and cached by content; the first probe that runs out of time leaves the later
ones unrun (``timeout``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..models import Probe, TestOutcome, TestStatus
from ..sandbox import Sandbox
from ._budget import BudgetRule, Budgets
from ._compare import values_match
from ._execute import SHOWN_CHARS
from ._harness import duration_of, run_harness, show, text
from ._recording import ReferenceCache

_FAILED: dict[str, TestStatus] = {"nonplain": "wrong_answer", "toolarge": "wrong_answer",
                                  "timeout": "timeout"}


def probe_budgets(reference: dict[str, str], probes: Sequence[Probe], sandbox: Sandbox, *,
                  setup: str, rule: BudgetRule, cache: ReferenceCache) -> Budgets:
    """The probes' budgets, from the reference's times (measured now when not cached); the
    base budgets when there is no reference or it fails a probe."""
    if not reference:
        return rule.unknown(len(probes))
    parts = ["probes", sorted(reference.items()), setup,
             [(p.name, p.code, p.raises, repr(p.expect), p.tolerance) for p in probes]]
    times = cache.times(parts)
    if times is None:
        tests, _ = probe_outcomes(reference, probes, sandbox, setup=setup,
                                  budgets=rule.for_reference().unknown(len(probes)))
        if not all(test.status == "success" for test in tests):
            return rule.unknown(len(probes))
        times = tuple(test.duration_s for test in tests)
        cache.keep_times(parts, times)
    return rule.budgets(times)


def probe_outcomes(files: dict[str, str], probes: Sequence[Probe], sandbox: Sandbox, *,
                   setup: str, budgets: Budgets) -> tuple[list[TestOutcome], float]:
    """Each probe's outcome, and the sandbox time."""
    spec = {"mode": "probes", "setup": setup,
            "probes": [{"name": p.name, "code": p.code, "budget": budget}
                       for p, budget in zip(probes, budgets.tests)]}
    run = run_harness(sandbox, spec, files=files, tests=len(probes), budgets=budgets)
    found: list[TestOutcome] = []
    for probe, record in zip(probes, run.records):
        expected = f"raises {probe.raises}" if probe.raises else show(probe.expect)
        base: dict[str, Any] = {"name": probe.name, "input": probe.code[:SHOWN_CHARS],
                                "expected": expected}
        if record is None:
            status, detail = run.missing()
            found.append(TestOutcome(**base, status=status, detail=detail))
            continue
        status, detail, actual = _verdict(probe, record)
        found.append(TestOutcome(**base, status=status, detail=detail, actual=actual,
                                 duration_s=duration_of(record)))
    return found, run.outcome.duration_s


def _verdict(probe: Probe, record: dict[str, Any]) -> tuple[TestStatus, str, str | None]:
    kind = record.get("status")
    if kind == "value":
        value = record.get("value")
        if probe.raises:
            return "wrong_answer", f"expected {probe.raises} to be raised", show(value)
        if values_match(value, probe.expect, probe.tolerance):
            return "success", "", show(value)
        return "wrong_answer", "unexpected value", show(value)
    if kind == "raised":
        raised = text(record.get("raised"))
        listed = record.get("bases")
        bases: list[Any] = listed if isinstance(listed, list) else []
        shown = f"{raised}: {text(record.get('detail'))}"
        if probe.raises and (probe.raises == raised or probe.raises in bases):
            return "success", "", shown
        if probe.raises or "AssertionError" in bases:
            return "wrong_answer", f"raised {shown}", shown
        return "runtime_error", shown, shown
    return _FAILED.get(str(kind), "runtime_error"), text(record.get("detail")), None
