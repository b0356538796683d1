"""The grading harness, in the sandbox (``_r2r_harness``, started by :mod:`.boot`).

Standard library only: modules built into the interpreter, and ``json`` (a fork-server
imports it before any execution; a fresh interpreter pays ~1.5 ms for it).

Protocol. stdin: a nonce line, then the spec (marshal, base64) on one line. The harness
keeps the original stdout as its private results channel and points fd 1 at stderr before
any code under test runs, so nothing the code prints can look like a record. It writes
one JSON record per test, each carrying the nonce, then ends with ``os._exit(0)`` (no
atexit hook of the code runs). Every test runs under its budget (SIGALRM) capped by what is
left of the program's budget; the first test that runs out of time stops the program: every
later one reports ``timeout`` unrun (a looping program costs one budget, not one per test).
A test without a record is the process's fault on the host, never a pass.

Modes. ``probes``: run each probe's code after the setup and report its ``result`` as
plain data (exact builtin types only); the host compares it with the expected value,
which never enters the sandbox. ``record``, ``calls``, ``checker``: the steps of
record-and-replay grading of ``check(candidate)``, in :mod:`.replay`.
"""

from __future__ import annotations

import _signal
import binascii
import builtins
import json
import marshal
import os
import sys
import time
from _frozen_importlib import ModuleSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MAX_DEPTH = 100
CHECK_TYPES = frozenset({type(None), bool, int, float, complex, str, bytes, list, tuple, dict,
                         set, frozenset})
"""What a candidate of ``check(candidate)`` may return (see :func:`tagged`)."""
PROBE_TYPES = frozenset({type(None), bool, int, float, str, list, tuple, dict})
"""What a probe's ``result`` may be (see :func:`plain`)."""

PRISTINE = dict(builtins.__dict__)
"""The builtins as the interpreter made them, taken when this module is imported: before any
code under test runs (in a fork-server, once for all its children rather than in each)."""


class Timeout(BaseException):
    """The test's time budget ran out."""


class NonPlain(BaseException):
    """A value of a type outside the firewall's allow-list."""


def on_alarm(_signum: int, _frame: object) -> None:
    raise Timeout


def type_name(value: object) -> str:
    cls = type(value)
    module = type.__dict__["__module__"].__get__(cls)
    name = type.__dict__["__qualname__"].__get__(cls)
    return name if module == "builtins" else f"{module}.{name}"


def plain(value: Any, depth: int = 0) -> Any:
    """The firewall for probes: a JSON-ready copy of ``value`` made of exact builtin types
    (:data:`PROBE_TYPES`, dicts with str keys) only; raises NonPlain."""
    kind = type(value)
    if kind not in PROBE_TYPES:
        raise NonPlain(type_name(value))
    if depth > MAX_DEPTH:
        raise NonPlain(f"{type_name(value)} nested deeper than {MAX_DEPTH}")
    if kind is list or kind is tuple:
        return [plain(item, depth + 1) for item in value]
    if kind is dict:
        if any(type(key) is not str for key in value):
            raise NonPlain("dict with non-str keys")
        return {key: plain(item, depth + 1) for key, item in value.items()}
    return value


def tagged(value: Any, depth: int = 0) -> Any:
    """The firewall for replay: a JSON-ready copy of ``value`` (exact builtin types only,
    :data:`CHECK_TYPES`) that keeps tuples, sets, dicts with any keys, bytes and complex
    apart (the host decodes it with ``decode_plain``); raises NonPlain."""
    kind = type(value)
    if kind not in CHECK_TYPES:
        raise NonPlain(type_name(value))
    if depth > MAX_DEPTH:
        raise NonPlain(f"{type_name(value)} nested deeper than {MAX_DEPTH}")
    if kind is list:
        return [tagged(item, depth + 1) for item in value]
    if kind is tuple or kind is set or kind is frozenset:
        return {"~": type.__dict__["__name__"].__get__(kind),
                "v": [tagged(item, depth + 1) for item in value]}
    if kind is dict:
        return {"~": "dict", "v": [[tagged(k, depth + 1), tagged(v, depth + 1)]
                                   for k, v in value.items()]}
    if kind is bytes:
        return {"~": "bytes", "v": value.hex()}
    if kind is complex:
        return {"~": "complex", "v": [value.real, value.imag]}
    return value


def class_names(cls: type) -> list[str]:
    """Names of ``cls`` and its bases; a class merely named like a builtin is left out."""
    names = []
    for base in cls.__mro__:
        name = type.__dict__["__name__"].__get__(base)
        if getattr(builtins, name, base) is base:
            names.append(name)
    return names


def message(exc: BaseException) -> str:
    args = BaseException.__dict__["args"].__get__(exc)
    if len(args) == 1 and type(args[0]) is str:
        return args[0][:2000]
    return ", ".join(type_name(arg) for arg in args)


def describe(exc: BaseException) -> str:
    text = message(exc)
    return f"{type_name(exc)}: {text}" if text else type_name(exc)


STOPPED: list[str] = []
"""Why no further test runs in this execution: set when a test runs out of time."""


def timed(action: Callable[[], Any], budget: float) -> tuple[str, Any, float]:
    """Run ``action`` under ``budget`` seconds: (status, value or detail, duration). After a
    timeout, nothing more runs."""
    if STOPPED:
        return "timeout", STOPPED[0], 0.0
    if budget <= 0:
        return "timeout", "not run: the program's time budget was spent", 0.0
    start = time.perf_counter()
    try:
        try:
            _signal.setitimer(_signal.ITIMER_REAL, budget)
            value = action()
            _signal.setitimer(_signal.ITIMER_REAL, 0)
            return "pass", value, time.perf_counter() - start
        finally:
            _signal.setitimer(_signal.ITIMER_REAL, 0)
    except Timeout:
        STOPPED.append("not run: an earlier test timed out")
        return "timeout", f"took longer than {budget:.3g} s", time.perf_counter() - start
    except NonPlain as exc:
        detail = f"returned a non-plain value of type {message(exc)}"
        return "nonplain", detail, time.perf_counter() - start
    except AssertionError as exc:
        return "fail", exc, time.perf_counter() - start
    except BaseException as exc:  # noqa: BLE001 - the code may raise anything, SystemExit included
        return "error", exc, time.perf_counter() - start


def load_module(name: str) -> Any:
    """Import the solution module ``name`` (``name.py`` in the work directory) as the import
    system would, without its finders and loaders, whose first use in a forked child copies
    memory pages the child would otherwise share. Anything else (a package, say) goes through ``__import__``."""
    path = os.path.join(os.getcwd(), f"{name}.py")
    if name in sys.modules or not os.path.isfile(path):
        return __import__(name)
    with open(path, "rb") as handle:
        code = compile(handle.read(), path, "exec", dont_inherit=True)
    module = type(sys)(name)
    module.__file__ = path
    module.__package__ = ""
    module.__spec__ = ModuleSpec(name, None, origin=path)
    module.__spec__.has_location = True
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)  # noqa: S102 - the code under test, as its import would
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def run_probes(spec: dict[str, Any], emit: Callable[..., None],
               budget: Callable[[], float]) -> None:
    setup = compile(spec["setup"], "<setup>", "exec")
    for index, probe in enumerate(spec["probes"]):

        def action(source: str = probe["code"], name: str = probe["name"]) -> Any:
            namespace: dict[str, Any] = {"__name__": "__r2r_probe__",
                                         "__builtins__": dict(PRISTINE)}
            exec(setup, namespace)  # noqa: S102 - running the code is this file's job
            exec(compile(source, f"<probe {name}>", "exec"), namespace)  # noqa: S102
            if "result" not in namespace:
                raise NameError("the probe did not assign 'result'")
            return plain(namespace["result"])

        status, value, duration = timed(action, min(probe.get("budget", budget()), budget()))
        if status == "pass":
            emit(i=index, status="value", value=value, duration=duration)
        elif status in ("fail", "error"):
            emit(i=index, status="raised", raised=type_name(value), bases=class_names(type(value)),
                 detail=message(value), duration=duration)
        else:
            emit(i=index, status=status, detail=value, duration=duration)


to_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
"""JSON text of a record (plain data: what :func:`plain` or :func:`tagged` returns); NaN as
``NaN``, a string's characters as they are (a record's size is counted in them)."""


def main(nonce: str, encoded_spec: bytes) -> None:
    """Run the spec (marshal, base64) and report each test with ``nonce``; started by the boot
    module."""
    spec = marshal.loads(binascii.a2b_base64(encoded_spec))
    channel = open(os.dup(1), "w", encoding="utf-8", errors="backslashreplace")  # noqa: SIM115
    os.dup2(2, 1)
    limit = int(spec["record_bytes"])

    def emit(**record: Any) -> None:
        try:
            line = to_json({"nonce": nonce, **record})
        except (ValueError, TypeError, RecursionError) as exc:  # e.g. an int too long to print
            line = to_json({"nonce": nonce, "i": record["i"], "status": "toolarge",
                            "detail": f"the value cannot be reported: {message(exc)}"})
        if len(line) > limit:
            line = to_json({"nonce": nonce, "i": record["i"], "status": "toolarge",
                            "detail": f"the value takes {len(line)} bytes to report"})
        channel.write(line + "\n")
        channel.flush()

    deadline = time.monotonic() + float(spec["program_s"])
    per_test = float(spec["per_test_s"])
    STOPPED.clear()

    def budget() -> float:
        return min(per_test, deadline - time.monotonic())

    _signal.signal(_signal.SIGALRM, on_alarm)
    sys.path.insert(0, os.getcwd())
    if spec["mode"] == "probes":
        run_probes(spec, emit, budget)
    else:
        import _r2r_replay

        _r2r_replay.run(spec, emit, budget)
    channel.flush()
    os._exit(0)
