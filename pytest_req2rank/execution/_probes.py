"""Grading requirement probes: one harness execution runs every probe and reports the values
they produced; the host compares them with ``probe.expect``, which never enters the sandbox."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..models import Probe, TestOutcome, TestStatus
from ..sandbox import Sandbox
from ._compare import values_match
from ._execute import SHOWN_CHARS
from ._harness import duration_of, run_harness, show, text

_FAILED: dict[str, TestStatus] = {"nonplain": "wrong_answer", "toolarge": "wrong_answer",
                                  "timeout": "timeout"}


def probe_outcomes(files: dict[str, str], probes: Sequence[Probe], sandbox: Sandbox, *,
                   timeout_s: float, setup: str) -> tuple[list[TestOutcome], float]:
    """Each probe's outcome, and the sandbox time."""
    spec = {"mode": "probes", "setup": setup,
            "probes": [{"name": p.name, "code": p.code} for p in probes]}
    run = run_harness(sandbox, spec, files=files, tests=len(probes), timeout_s=timeout_s)
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
