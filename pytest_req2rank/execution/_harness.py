"""Host side of the in-sandbox runner: building its request, accepting only its own records."""

from __future__ import annotations

import ast
import base64
import json
import marshal
import secrets
import signal
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from typing import Any, Literal

from ..errors import Req2RankError
from ..models import Probe, TestOutcome, TestStatus
from ..sandbox import PYTHON, ExecOutcome, ExecRequest, Limits, Sandbox
from ._ast_tools import segment, split_lines
from ._compare import values_match

RUNNER_FILE = "_r2r_runner.py"
BOOT_MODULE = "_r2r_boot"
WARM_START = f"__import__({BOOT_MODULE!r}).start()\n"
"""``_r2r_runner.py`` when the sandbox has imported the boot module and the runner's."""
MODULES = {"_r2r_main": "_harness_runner.py", "_r2r_replay": "_replay_runner.py"}
"""The runner's modules in the sandbox, and their sources here."""
REPLAY_MODES = frozenset({"record", "calls", "checker"})
TIMEOUTS_PER_EXECUTION = 3
"""An execution's budget is this many per-test budgets: a few looping tests are each
``timeout`` while the others still run; beyond that, the rest are ``timeout`` unrun."""
STARTUP_SLACK_S = 1.0
SHOWN_CHARS = 500
ATTEMPTS = 2
"""A sandbox failure is retried once, then the item is ``sandbox_error``."""

_CHECK_STATUS: dict[str, TestStatus] = {
    "pass": "success", "fail": "wrong_answer", "nonplain": "wrong_answer",
    "toolarge": "wrong_answer", "error": "runtime_error", "timeout": "timeout",
}


class SandboxFailed(Req2RankError):
    """The sandbox itself failed twice; nothing can be said about the code."""


def execute(sandbox: Sandbox, request: ExecRequest) -> ExecOutcome:
    """Run ``request``, retrying once when the sandbox itself fails; raises SandboxFailed."""
    error = "no attempt"
    for _ in range(ATTEMPTS):
        try:
            outcome = sandbox.run(request)
        except Exception as exc:  # noqa: BLE001 - a backend bug is the sandbox's fault, not the model's
            outcome = ExecOutcome(error=f"{type(exc).__name__}: {exc}")
        if outcome.error is None:
            return outcome
        error = outcome.error
    raise SandboxFailed(f"the sandbox failed twice: {error}")


@dataclass(frozen=True)
class Step:
    """One top-level statement of ``check``: setup, or an assert that is one test."""

    kind: Literal["setup", "test"]
    name: str
    source: str


@cache
def runner_source(name: str = "_harness_runner.py") -> str:
    return Path(__file__).with_name(name).read_text(encoding="utf-8")


@cache
def _runner_modules(replay: bool) -> dict[str, str]:
    """The runner's modules, by name in the sandbox, with their sources."""
    return {name: runner_source(source) for name, source in MODULES.items()
            if replay or name != "_r2r_replay"}


@cache
def _compiled(replay: bool) -> str:
    """The runner's modules compiled here (stdin lines for ``_runner_boot.py``)."""
    codes = {name: compile(source, f"{name}.py", "exec", dont_inherit=True)
             for name, source in _runner_modules(replay).items()}
    return f"{MAGIC_NUMBER.hex()}\n{base64.b64encode(marshal.dumps(codes)).decode()}\n"


@lru_cache(maxsize=512)
def check_steps(test: str) -> tuple[str, tuple[Step, ...]]:
    """``check``'s parameter name and its steps; the whole check is one test without top-level asserts."""
    tree = ast.parse(test)
    check = next((node for node in tree.body
                  if isinstance(node, ast.FunctionDef) and node.name == "check"), None)
    param = check.args.args[0].arg if check is not None and check.args.args else "candidate"
    whole = (Step("test", "check", f"check({param})"),)
    if check is None or not any(_holds_assert(stmt) for stmt in check.body):
        return param, whole
    steps: list[Step] = []
    lines = split_lines(test)
    for stmt in check.body:
        source = textwrap.dedent(segment(lines, stmt))
        try:
            compile(source, "<check>", "exec")
        except SyntaxError:  # e.g. a top-level return: only valid inside the function
            return param, whole
        tests = sum(step.kind == "test" for step in steps)
        if _holds_assert(stmt):
            steps.append(Step("test", f"check[{tests}]", source))
        else:
            steps.append(Step("setup", f"setup before check[{tests}]", source))
    return param, tuple(steps)


def prompt_module(prompt: str) -> str:
    """The prompt as a module whose helpers the test may use (HumanEval's tests call some)."""
    for candidate in (prompt, prompt.rstrip() + "\n    pass\n"):
        if compile_error(candidate, "<prompt>") is None:
            return candidate
    return ""


def compile_error(source: str, name: str) -> str | None:
    """The compiler's message, or None; compiles only, never executes."""
    try:
        compile(source, name or "<string>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"{name}:{exc.lineno}: {type(exc).__name__}: {exc.msg}"
    except (ValueError, MemoryError, RecursionError, OverflowError) as exc:
        return f"{name}: {type(exc).__name__}: {exc}"
    return None


def _holds_assert(stmt: ast.stmt) -> bool:
    """A top-level statement holding an assert (a loop of asserts too) is one test."""
    return any(isinstance(node, ast.Assert) for node in ast.walk(stmt))


def runner_request(files: Mapping[str, str], spec: dict[str, Any], tests: int, *,
                   timeout_s: float, limits: Limits | None = None,
                   warm: bool = False) -> tuple[ExecRequest, str]:
    """The request that runs the runner on ``files`` for ``tests`` tests, and its nonce.

    ``warm``: the sandbox imports the runner's modules ahead of the run
    (:attr:`Sandbox.warm_modules`), so they are not shipped compiled on stdin.
    """
    limits = limits or Limits()
    nonce = secrets.token_hex(16)
    budget = timeout_s * min(max(tests, 1), TIMEOUTS_PER_EXECUTION)
    spec = {**spec, "per_test_s": timeout_s, "budget_s": budget,
            "record_bytes": max(2_000, limits.output_bytes // (tests + 1))}
    replay = spec.get("mode") in REPLAY_MODES
    boot = runner_source("_runner_boot.py")
    modules = {BOOT_MODULE: boot, **_runner_modules(replay)} if warm else _runner_modules(replay)
    request = ExecRequest(
        files={**files, RUNNER_FILE: WARM_START if warm else boot},
        modules=modules,
        argv=(PYTHON, RUNNER_FILE),
        stdin=f"{nonce}\n{base64.b64encode(marshal.dumps(spec)).decode()}\n"
              + ("\n\n" if warm else _compiled(replay)),
        timeout_s=budget + max(STARTUP_SLACK_S, timeout_s),
        limits=limits,
    )
    return request, nonce


def read_records(outcome: ExecOutcome, nonce: str, count: int) -> list[dict[str, Any] | None]:
    """The runner's record for each test index; ``None`` where none carried the nonce."""
    records: list[dict[str, Any] | None] = [None] * count
    for line in outcome.stdout.splitlines():
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # a forged line nested deep enough to crash a parser
            continue
        if not isinstance(record, dict) or record.get("nonce") != nonce:
            continue
        index = record.get("i")
        if type(index) is int and 0 <= index < count and records[index] is None:
            records[index] = record
    return records


def process_failure(outcome: ExecOutcome) -> tuple[TestStatus, str] | None:
    """The process's own failure (timeout, signal, non-zero exit), or None when it exited 0."""
    if outcome.timed_out:
        return "timeout", "killed at the wall timeout"
    if outcome.signal == signal.SIGXCPU:
        return "timeout", "CPU time limit exceeded"
    last = next((line.strip() for line in reversed(outcome.stderr.splitlines()) if line.strip()),
                "")[:SHOWN_CHARS]
    if outcome.signal is not None:
        try:
            name = signal.Signals(outcome.signal).name
        except ValueError:
            name = f"signal {outcome.signal}"
        return "runtime_error", f"killed by {name}" + (f": {last}" if last else "")
    if outcome.exit_code != 0:
        return "runtime_error", last or f"exited with code {outcome.exit_code}"
    return None


def missing_verdict(outcome: ExecOutcome) -> tuple[TestStatus, str]:
    """Why a test has no record: the process's fault, never a pass."""
    failure = process_failure(outcome)
    if failure is None:
        return "runtime_error", "the process exited (code 0) before reporting this test"
    status, detail = failure
    return status, f"{detail} (before reporting this test)"


def check_outcomes(records: Sequence[dict[str, Any] | None], steps: Sequence[Step],
                   outcome: ExecOutcome) -> list[TestOutcome]:
    tests = [step for step in steps if step.kind == "test"]
    found: list[TestOutcome] = []
    for step, record in zip(tests, records):
        shown = step.source.strip()[:SHOWN_CHARS]
        if record is None:
            status, detail = missing_verdict(outcome)
            found.append(TestOutcome(name=step.name, status=status, detail=detail, input=shown))
            continue
        status = _CHECK_STATUS.get(str(record.get("status")), "runtime_error")
        detail = _text(record.get("detail"))
        if status == "wrong_answer" and record.get("status") == "fail":
            detail = f"assertion failed: {shown.splitlines()[0]}" + (f" ({detail})" if detail else "")
        found.append(TestOutcome(name=step.name, status=status, detail=detail, input=shown,
                                 duration_s=duration_of(record)))
    return found


def probe_outcomes(records: Sequence[dict[str, Any] | None], probes: Sequence[Probe],
                   outcome: ExecOutcome) -> list[TestOutcome]:
    found: list[TestOutcome] = []
    for probe, record in zip(probes, records):
        expected = f"raises {probe.raises}" if probe.raises else show(probe.expect)
        base: dict[str, Any] = {"name": probe.name, "input": probe.code[:SHOWN_CHARS],
                                "expected": expected}
        if record is None:
            status, detail = missing_verdict(outcome)
            found.append(TestOutcome(**base, status=status, detail=detail))
            continue
        status, detail, actual = _probe_verdict(probe, record)
        found.append(TestOutcome(**base, status=status, detail=detail, actual=actual,
                                 duration_s=duration_of(record)))
    return found


def _probe_verdict(probe: Probe, record: dict[str, Any]) -> tuple[TestStatus, str, str | None]:
    kind = record.get("status")
    if kind == "value":
        value = record.get("value")
        if probe.raises:
            return "wrong_answer", f"expected {probe.raises} to be raised", show(value)
        if values_match(value, probe.expect, probe.tolerance):
            return "success", "", show(value)
        return "wrong_answer", "unexpected value", show(value)
    if kind == "raised":
        raised = _text(record.get("raised"))
        listed = record.get("bases")
        bases: list[Any] = listed if isinstance(listed, list) else []
        shown = f"{raised}: {_text(record.get('detail'))}"
        if probe.raises and (probe.raises == raised or probe.raises in bases):
            return "success", "", shown
        if probe.raises or "AssertionError" in bases:
            return "wrong_answer", f"raised {shown}", shown
        return "runtime_error", shown, shown
    status = _CHECK_STATUS.get(str(kind), "runtime_error")
    return status, _text(record.get("detail")), None


def show(value: Any) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"


def _text(value: Any) -> str:
    return value[:SHOWN_CHARS * 4] if isinstance(value, str) else ""


def duration_of(record: dict[str, Any]) -> float:
    """The duration a record reports, if plausible (the code under test can forge records)."""
    value = record.get("duration")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 1e6:
        return float(value)
    return 0.0
