"""Recording the reference solution's run of a decomposed check, cached per task content.

One sandbox execution per task: the reference answers every candidate call of the
instrumented check (see :mod:`._decompose`), and the runner reports the calls'
arguments, returned values and times, and the operands host-decided asserts need.
The recording is kept in memory, and on disk when the cache has a directory
(shared by xdist workers: files are written atomically; by default in the user's
cache directory, see :func:`default_directory`), keyed by a hash of the task's
prompt, reference, entry point and test and of the runners' sources: a warm task
is graded in one execution.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..models import Task
from ..sandbox import Limits, Sandbox
from ._compare import NotPlain, decode_plain
from ._decompose import CheckPlan, plan_check, plan_data, plan_from_data
from ._extract import ENTRY_FILE
from ._harness import (
    execute,
    process_failure,
    prompt_module,
    read_records,
    runner_request,
    runner_source,
)

FORMAT = 1
MODULE = ENTRY_FILE.removesuffix(".py")
SEED = 0
"""``random`` is seeded with this before the check runs (record and checker runs alike)."""
PLAN_SOURCES = ("_decompose.py", "_ast_tools.py")
"""A change to any of these invalidates the plans on disk."""
SOURCES = ("_harness_runner.py", "_replay_runner.py", *PLAN_SOURCES)
"""A change to any of these invalidates the recordings on disk (they follow the plan's steps)."""
RECORD_LIMITS = Limits(output_bytes=8_000_000)
RECORD_MIN_S = 10.0
"""The reference's per-test budget is at least this: it is trusted, timed, and recorded once."""


@dataclass(frozen=True)
class Call:
    """One candidate call of a test: arguments (decoded and as tagged), the reference's output."""

    args: list[Any]
    kwargs: dict[str, Any]
    tagged: list[Any]
    expected: Any


@dataclass(frozen=True)
class Instance:
    """One evaluation of a host-decided assert: its call sites' call indices and its operands."""

    key: int
    sites: dict[int, int]
    leaves: dict[int, Any]


@dataclass(frozen=True)
class RecordedTest:
    calls: tuple[Call, ...]
    instances: tuple[Instance, ...]
    seconds: float
    """The reference's time in the candidate calls of this test."""
    size: int
    """Bytes the reference's outputs for this test take to report."""


@dataclass(frozen=True)
class Recording:
    tests: tuple[RecordedTest, ...]


CACHE_ENV = "R2R_REFERENCE_CACHE"


def default_directory(environ: Mapping[str, str] = os.environ) -> Path | None:
    """Where recordings persist by default: ``$R2R_REFERENCE_CACHE`` (empty: nowhere, memory
    only), else ``pytest-req2rank/references`` in the user's cache directory."""
    named = environ.get(CACHE_ENV)
    if named is not None:
        return Path(named) if named.strip() else None
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pytest-req2rank" / "references"


class ReferenceCache:
    """Recordings by task content, and the plans of checks (``plan-*.json``); ``directory``
    (optional) persists them across runs.

    Only usable recordings are written to disk: why a reference run failed (a timeout
    on a busy machine, say) is kept for this process only. A directory that cannot be
    written leaves the cache in memory.
    """

    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = Path(directory) if directory is not None else None
        self._memory: dict[str, Recording | str] = {}
        self._plans: dict[str, CheckPlan] = {}
        """By the check's source."""

    def plan(self, test: str) -> CheckPlan:
        """The decomposition of ``test`` (:func:`plan_check`), read back when an earlier run
        wrote it: about 5x cheaper than building it again."""
        found = self._plans.get(test)
        if found is None:
            key = "plan-" + _digest([_sources_digest(PLAN_SOURCES), test])
            found = self._read_plan(key)
            if found is None:
                found = plan_check(test)
                data = plan_data(found)
                if data is not None:
                    self._write(key, data)
            self._plans[test] = found
        return found

    def _read_plan(self, key: str) -> CheckPlan | None:
        data = self._read(key)
        if not isinstance(data, dict):
            return None
        try:
            return plan_from_data(data)
        except (KeyError, TypeError, ValueError, IndexError, SyntaxError, RecursionError):
            return None

    def recording(self, task: Task, plan: CheckPlan, sandbox: Sandbox, *,
                  timeout_s: float) -> Recording | str:
        """The task's recording, or why it cannot be replayed; raises SandboxFailed."""
        key = _key(task)
        found = self._memory.get(key)
        if found is None:
            raw = self._read(key)
            if not isinstance(raw, (list, str)):
                raw = _record(task, plan, sandbox, timeout_s)
                if not isinstance(raw, str):
                    self._write(key, raw)
            found = self._memory[key] = _build(raw, plan)
        return found

    def _read(self, key: str) -> Any:
        """What :meth:`_write` wrote under ``key``; None when nothing usable is there."""
        if self.directory is None:
            return None
        try:
            data = json.loads((self.directory / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        return data.get("raw")

    def _write(self, key: str, raw: Any) -> None:
        if self.directory is None:
            return
        with contextlib.suppress(OSError):
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(json.dumps({"format": FORMAT, "raw": raw}))  # json.dump: no C encoder
            os.replace(temporary, self.directory / f"{key}.json")


def _key(task: Task) -> str:
    return _digest([_sources_digest(SOURCES), task.prompt, task.reference, task.entry_point,
                    task.test])


def _digest(parts: list[Any]) -> str:
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:32]


@cache
def _sources_digest(names: tuple[str, ...]) -> str:
    """The format and the sources of the modules ``names`` (this package's): what cached
    data depends on besides its task."""
    return _digest([FORMAT, *(runner_source(name) for name in names)])


def _record(task: Task, plan: CheckPlan, sandbox: Sandbox,
            timeout_s: float) -> list[dict[str, Any]] | str:
    """The runner's records for the reference, or why the reference run is unusable."""
    spec = {"mode": "record", "module": MODULE, "entry_point": task.entry_point,
            "prompt": prompt_module(task.prompt), "test": task.test, "seed": SEED,
            "steps": step_specs(plan)}
    request, nonce = runner_request({ENTRY_FILE: task.reference}, spec, plan.tests,
                                    timeout_s=max(timeout_s, RECORD_MIN_S), limits=RECORD_LIMITS,
                                    warm=sandbox.warm_modules)
    outcome = execute(sandbox, request)
    records = read_records(outcome, nonce, plan.tests)
    for index, record in enumerate(records):
        if record is None:
            failure = process_failure(outcome) or ("", "no record")
            return f"the reference run reported nothing for check[{index}]: {failure[1]}"
        if record.get("status") != "pass":
            return f"the reference fails check[{index}]: {record.get('detail')}"
    return [record for record in records if record is not None]


def step_specs(plan: CheckPlan, skip: frozenset[int] = frozenset()) -> list[dict[str, Any]]:
    """The plan's steps for the runner; a setup step belongs to the test that follows it."""
    specs: list[dict[str, Any]] = []
    last = plan.tests - 1
    for position, step in enumerate(plan.steps):
        owner = step.test
        if owner is None:
            owner = next((s.test for s in plan.steps[position:] if s.test is not None), last)
        specs.append({"source": step.source, "test": step.test, "owner": owner,
                      "skip": step.test is not None and step.test in skip})
    return specs


def _build(raw: list[dict[str, Any]] | str, plan: CheckPlan) -> Recording | str:
    if isinstance(raw, str):
        return raw
    try:
        return Recording(tuple(_test(record, plan) for record in raw))
    except (NotPlain, KeyError, TypeError, ValueError) as exc:
        return f"the reference run's record is unusable: {type(exc).__name__}: {exc}"


def _test(record: dict[str, Any], plan: CheckPlan) -> RecordedTest:
    calls = tuple(Call(args=decode_plain(c["a"]), kwargs=decode_plain(c["k"]),
                       tagged=[c["a"], c["k"]], expected=decode_plain(c["o"]))
                  for c in record["calls"])
    if any(type(c.args) is not list or type(c.kwargs) is not dict for c in calls):
        raise ValueError("malformed call")
    instances = tuple(Instance(key=int(i["a"]), sites={int(k): int(v) for k, v in i["c"].items()},
                               leaves={int(k): decode_plain(v) for k, v in i["l"].items()})
                      for i in record["inst"])
    if any(i.key not in plan.asserts for i in instances):
        raise ValueError("an instance of an unknown assert")
    size = len(json.dumps([c["o"] for c in record["calls"]]))
    return RecordedTest(calls, instances, float(record["duration"]), size)
