"""Per-process state of the fake provider: the active script, consumed responses, the call log."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._script import (
    LOG_ENV,
    SCRIPT_ENV,
    FakeScript,
    FakeScriptError,
    Step,
    load_script,
    parse_script,
)


class FakeState:
    """Everything the fake remembers in this process; guarded by one lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.override: FakeScript | None = None
        self.cached: tuple[tuple[str, int, int], FakeScript] | None = None
        self.consumed: dict[tuple[str, str, int], int] = {}
        self.calls: list[dict[str, Any]] = []
        self.in_flight = 0

    def clear(self) -> None:
        with self.lock:
            self.override = None
            self.cached = None
            self.consumed.clear()
            self.calls.clear()
            self.in_flight = 0


STATE = FakeState()


def set_fake_script(script: Mapping[str, Any] | FakeScript | None) -> None:
    """Use ``script`` in this process instead of the ``R2R_FAKE_SCRIPT`` file (``None`` undoes it).

    Only this process sees it: for pytest-xdist workers or pytester subprocesses,
    write a file with :func:`write_fake_script` and set the environment instead.
    """
    parsed = None if script is None else parse_script(script)
    with STATE.lock:
        STATE.override = parsed


def current_script() -> FakeScript:
    """The programmatic script, else the file named by ``R2R_FAKE_SCRIPT`` (re-read when it changes)."""
    with STATE.lock:
        if STATE.override is not None:
            return STATE.override
    name = os.environ.get(SCRIPT_ENV)
    if not name:
        raise FakeScriptError(
            f"no fake script: set {SCRIPT_ENV} to a JSON script file (see write_fake_script) "
            "or call set_fake_script()"
        )
    path = Path(name)
    try:
        stat = path.stat()
    except OSError:
        raise FakeScriptError(f"{SCRIPT_ENV}={path}: file not found") from None
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    with STATE.lock:
        if STATE.cached is not None and STATE.cached[0] == key:
            return STATE.cached[1]
    script = load_script(path)
    with STATE.lock:
        STATE.cached = (key, script)
    return script


def check_scripted(name: str) -> None:
    """Raise :class:`FakeScriptError` unless model ``fake/<name>`` can be served: a valid
    script is set and scripts ``name``. For a run to stop at start rather than fail each item."""
    script = current_script()
    if name not in script.models:
        known = ", ".join(f"fake/{model}" for model in sorted(script.models)) or "none"
        with STATE.lock:
            programmatic = STATE.override is not None
        source = ("set with set_fake_script()" if programmatic
                  else f"{SCRIPT_ENV}={os.environ.get(SCRIPT_ENV)}")
        raise FakeScriptError(
            f"fake/{name} is not in the fake script ({source}; scripted models: {known}); "
            "add it under \"models\" or pick a scripted model"
        )


def declares_info(name: str) -> bool:
    """Whether the fake script gives model ``fake/<name>`` model information (no script: no)."""
    try:
        return name in current_script().info
    except FakeScriptError:
        return False


def next_step(script: FakeScript, name: str, rule: int) -> tuple[int, Step]:
    """The next response of a rule in this process; the last one repeats."""
    responses = script.models[name][rule].responses
    key = (script.fingerprint, name, rule)
    with STATE.lock:
        seen = STATE.consumed.get(key, 0)
        STATE.consumed[key] = seen + 1
    index = min(seen, len(responses) - 1)
    return index, responses[index]


def record_call(record: dict[str, Any]) -> None:
    """Keep ``record`` in memory and append it to the ``R2R_FAKE_LOG`` file, if set."""
    line = json.dumps(record, default=str, sort_keys=True)
    with STATE.lock:
        STATE.calls.append(json.loads(line))
        log = os.environ.get(LOG_ENV)
        if log:
            # One write of one line in append mode: lines from concurrent processes don't interleave.
            with open(log, "a", encoding="utf-8") as handle:
                handle.write(line + "\n")


def fake_calls(*, preflight: bool | None = None) -> list[dict[str, Any]]:
    """The calls this process served, oldest first (copies); ``preflight`` True or False:
    only the preflight's calls, or all but them."""
    with STATE.lock:
        return _kept([dict(call) for call in STATE.calls], preflight)


def read_fake_log(path: str | Path | None = None, *, preflight: bool | None = None
                  ) -> list[dict[str, Any]]:
    """Every call recorded in the log file (default: ``R2R_FAKE_LOG``), from all processes;
    ``preflight`` as for :func:`fake_calls`."""
    name = path if path is not None else os.environ.get(LOG_ENV)
    if not name:
        raise FakeScriptError(f"no call log: pass a path or set {LOG_ENV}")
    try:
        text = Path(name).read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return _kept([json.loads(line) for line in text.splitlines() if line.strip()], preflight)


def _kept(calls: list[dict[str, Any]], preflight: bool | None) -> list[dict[str, Any]]:
    if preflight is None:
        return calls
    return [call for call in calls if bool(call.get("preflight")) == preflight]
