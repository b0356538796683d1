"""The host side of the grading harness (:mod:`pytest_req2rank.sandboxed.harness`): one
execution of it, and only its own records read back (each carries the execution's nonce)."""

from __future__ import annotations

import base64
import json
import marshal
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib.util import MAGIC_NUMBER
from typing import Any

from .. import sandboxed
from ..models import TestStatus
from ..sandbox import PYTHON, ExecOutcome, ExecRequest, Limits, Sandbox
from ._budget import Budgets
from ._execute import SHOWN_CHARS, execute, process_failure

START_FILE = "_r2r_start.py"
BOOT_MODULE = "_r2r_boot"
WARM_START = f"__import__({BOOT_MODULE!r}).start()\n"
"""``_r2r_start.py`` when the sandbox has imported the boot module and the harness's."""
MODULES = {"_r2r_harness": "harness", "_r2r_replay": "replay"}
"""The harness's modules in the sandbox, and their names in :mod:`pytest_req2rank.sandboxed`."""
REPLAY_MODES = frozenset({"record", "calls", "checker"})
STARTUP_SLACK_S = 1.0
"""The process may take this long beyond the program's budget (start, records) before it is
killed: only code that holds off the harness's alarm (a long C call) is stopped this way."""


@dataclass(frozen=True)
class HarnessRun:
    """What one execution of the harness reported: a record per test index (None where none
    carried the nonce) and the process's outcome."""

    records: list[dict[str, Any] | None]
    outcome: ExecOutcome

    def missing(self) -> tuple[TestStatus, str]:
        """Why a test has no record: the process's fault, never a pass."""
        failure = process_failure(self.outcome)
        if failure is None:
            return "runtime_error", "the process exited (code 0) before reporting this test"
        status, detail = failure
        return status, f"{detail} (before reporting this test)"


def run_harness(sandbox: Sandbox, spec: dict[str, Any], *, files: Mapping[str, str], tests: int,
                budgets: Budgets, limits: Limits | None = None) -> HarnessRun:
    """Run the harness on ``files`` with ``spec`` for ``tests`` tests, within ``budgets`` (a
    test without its own budget in ``spec`` gets the largest); raises :class:`SandboxFailed`
    when the sandbox fails twice."""
    request, nonce = _request(files, spec, tests, budgets=budgets, limits=limits or Limits(),
                              warm=sandbox.warm_modules)
    outcome = execute(sandbox, request)
    return HarnessRun(_records(outcome, nonce, tests), outcome)


def _request(files: Mapping[str, str], spec: dict[str, Any], tests: int, *, budgets: Budgets,
             limits: Limits, warm: bool) -> tuple[ExecRequest, str]:
    """The request, and its nonce. ``warm``: the sandbox imports the harness's modules ahead
    of the run (:attr:`Sandbox.warm_modules`), so they are not shipped compiled on stdin."""
    nonce = secrets.token_hex(16)
    spec = {**spec, "per_test_s": max(budgets.tests, default=budgets.program_s),
            "program_s": budgets.program_s,
            "record_bytes": max(2_000, limits.output_bytes // (tests + 1))}
    replay = spec.get("mode") in REPLAY_MODES
    boot = sandboxed.source("boot")
    modules = {BOOT_MODULE: boot, **_modules(replay)} if warm else _modules(replay)
    request = ExecRequest(
        files={**files, START_FILE: WARM_START if warm else boot},
        modules=modules,
        argv=(PYTHON, START_FILE),
        stdin=f"{nonce}\n{base64.b64encode(marshal.dumps(spec)).decode()}\n"
              + ("\n\n" if warm else _compiled(replay)),
        timeout_s=budgets.program_s + STARTUP_SLACK_S,
        limits=limits,
    )
    return request, nonce


@cache
def _modules(replay: bool) -> dict[str, str]:
    """The harness's modules, by name in the sandbox, with their sources."""
    return {name: sandboxed.source(source) for name, source in MODULES.items()
            if replay or name != "_r2r_replay"}


@cache
def _compiled(replay: bool) -> str:
    """The harness's modules compiled here (stdin lines for the boot module)."""
    codes = {name: compile(source, f"{name}.py", "exec", dont_inherit=True)
             for name, source in _modules(replay).items()}
    return f"{MAGIC_NUMBER.hex()}\n{base64.b64encode(marshal.dumps(codes)).decode()}\n"


def _records(outcome: ExecOutcome, nonce: str, count: int) -> list[dict[str, Any] | None]:
    """The harness's first record for each test index; ``None`` where none carried the nonce."""
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


def show(value: Any) -> str:
    """``value`` as a test's outcome shows it (JSON, cut at :data:`SHOWN_CHARS`)."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"


def text(value: Any) -> str:
    """A record's text field, cut; '' when it is not a string (records can be forged)."""
    return value[:SHOWN_CHARS * 4] if isinstance(value, str) else ""


def duration_of(record: Mapping[str, Any]) -> float:
    """The duration a record reports, if plausible (the code under test can forge records)."""
    value = record.get("duration")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 1e6:
        return float(value)
    return 0.0
