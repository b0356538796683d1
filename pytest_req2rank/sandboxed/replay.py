"""The in-sandbox half of record-and-replay grading of ``check(candidate)`` (``_r2r_replay``).

Imported by :mod:`.harness`; standard library only, plus ``random`` (seeded, so that a
check's random inputs repeat from one execution to the next). The host decomposed the
check into steps (top-level statements; those holding an assert are tests) in which a
call of the candidate reads ``__r2r_call__(site, args, kwargs)``; the candidate's names
themselves are bound to a function that does the same, for steps left as written.

``record`` runs the check against a program (the reference, or the candidate itself when
the reference cannot predict its calls) and reports, per test, every candidate call
(its arguments, then its returned value unless it raised; time) and, for each
host-decided assert, the operands the host cannot compute itself.

``calls`` runs the CANDIDATE on given arguments only and reports what each call returned
or raised (and the arguments after it, when the call changed them): no test code, no
expected value and no verdict exist in that process.

``checker`` runs the check with no candidate code at all: each call is answered with the
candidate's reported value (or its exception raised again, as the nearest builtin class)
after checking that its arguments are the ones the candidate was called with (and the
candidate's changes to them are applied), so the verdicts it reports cannot be forged by
the code under test. A test whose calls differ from the
answered ones reports ``diverged``.
"""

from __future__ import annotations

import time

import _r2r_harness as harness

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class Diverged(BaseException):
    """The check called the candidate with arguments it was not called with."""


class Unsupported(BaseException):
    """The check passes the candidate a value that cannot cross the firewall (a function,
    an object of its own): no other process can answer that call."""


def run(spec: dict[str, Any], emit: Callable[..., None], budget: Callable[[], float]) -> None:
    {"record": record, "calls": calls, "checker": checker}[spec["mode"]](spec, emit, budget)


def arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """The call's arguments through the firewall; :class:`Unsupported` when they cannot pass."""
    try:
        return [harness.tagged(list(args)), harness.tagged(kwargs)]
    except harness.NonPlain as exc:
        raise Unsupported(f"a value of type {harness.message(exc)}") from None


def load_program(spec: dict[str, Any], budget: Callable[[], float]) -> Any:
    """The program's module, or (status, detail) when it cannot be imported or lacks the
    entry point."""
    status, module, _ = harness.timed(lambda: harness.load_module(spec["module"]), budget())
    if status != "pass":
        detail = harness.describe(module) if isinstance(module, BaseException) else module
        return ("timeout" if status == "timeout" else "error", f"import failed: {detail}")
    if not callable(getattr(module, spec["entry_point"], None)):
        return ("error", f"{spec['module']} does not define {spec['entry_point']}()")
    return module


def namespace(spec: dict[str, Any], module: dict[str, Any],
              budget: Callable[[], float]) -> dict[str, Any] | str:
    """The check's globals: the prompt's helpers, the program's names, the test module; or
    why the test module failed."""
    import random  # here: a calls execution, the most frequent, never needs it

    names: dict[str, Any] = {"__name__": "__r2r_check__", "__builtins__": dict(harness.PRISTINE)}
    if spec.get("prompt"):
        harness.timed(lambda: exec(compile(spec["prompt"], "<prompt>", "exec"), names),  # noqa: S102
                      budget())
    names.update({k: v for k, v in module.items() if not k.startswith("__")})
    status, value, _ = harness.timed(
        lambda: exec(compile(spec["test"], "<test>", "exec"), names), budget())  # noqa: S102
    if status != "pass":
        return f"the test module failed: {value}"
    random.seed(spec["seed"])
    return names


def run_steps(spec: dict[str, Any], names: dict[str, Any], state: dict[str, Any],
              budget: Callable[[], float], finish: Callable[[int, str, Any, float], None]) -> None:
    """Run the steps; ``finish(test, status, value, duration)`` after each test's own step."""
    pending: tuple[str, Any] | None = None
    for step in spec["steps"]:
        state["owner"] = step["owner"]
        if step["skip"]:
            pending = None
            continue
        code = compile(step["source"], "<check>", "exec")
        status, value, duration = harness.timed(
            lambda code=code: exec(code, names), budget())  # noqa: S102
        if step["test"] is None:
            pending = None if status == "pass" else (status, value)
            continue
        if pending is not None:
            status, value = pending
            pending = None
        finish(step["test"], status, value, duration)


def bind(names: dict[str, Any], spec: dict[str, Any], call: Callable[..., Any]) -> None:
    """Bind the candidate's names in the check (its parameter, and the entry point's name
    when the check calls it by that name) to ``call``, as site 0."""
    def candidate(*args: Any, **kwargs: Any) -> Any:
        return call(0, args, kwargs)

    for name in (spec["param"], spec["entry"]):
        if name:
            names[name] = candidate


def outcome(status: str, value: Any) -> tuple[str, str]:
    """A test's reported status and detail."""
    if isinstance(value, Diverged):
        return "diverged", ""
    if isinstance(value, Unsupported):
        return "unsupported", f"the check passes the candidate {harness.message(value)}"
    if isinstance(value, BaseException):
        text = harness.describe(value) if status == "error" else harness.message(value)
        return status, str(text)
    return status, value if isinstance(value, str) else ""


def record(spec: dict[str, Any], emit: Callable[..., None], budget: Callable[[], float]) -> None:
    module = load_program(spec, budget)
    if type(module) is tuple:
        for test in range(spec["tests"]):
            emit(i=test, status=module[0], detail=module[1])
        return
    function = getattr(module, spec["entry_point"])
    tagged = harness.tagged
    state: dict[str, Any] = {"owner": None, "open": None}
    tests: dict[int, dict[str, Any]] = {}

    def current() -> dict[str, Any]:
        return tests.setdefault(state["owner"], {"calls": [], "inst": [], "time": 0.0})

    def call(site: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        # The time counts what a calls execution's budget covers: the call and the copies of
        # its arguments and value through the firewall.
        start = time.perf_counter()
        test = current()
        try:
            passed = arguments(args, kwargs)
            entry: dict[str, Any] = {"s": site, "a": passed[0], "k": passed[1]}
            if state["open"] is not None:
                state["open"]["c"][site] = len(test["calls"])
            test["calls"].append(entry)
            value = function(*args, **kwargs)  # when it raises, the call stays without "o"
            entry["o"] = tagged(value)
        finally:
            test["time"] += time.perf_counter() - start
        return value

    def leaf(key: int, value: Any) -> Any:
        if state["open"] is not None:
            try:
                state["open"]["l"][key] = tagged(value)
            except harness.NonPlain:  # the host cannot evaluate this assert: the checker will
                state["open"]["x"] = 1
        return value

    def host_assert(key: int, check: Callable[[], Any]) -> None:
        state["open"] = instance = {"a": key, "c": {}, "l": {}}
        try:
            holds = check()
        finally:
            state["open"] = None
        current()["inst"].append(instance)
        if not holds:
            raise AssertionError

    names = namespace(spec, vars(module), budget)
    if isinstance(names, str):
        for test in range(spec["tests"]):
            emit(i=test, status="error", detail=names)
        return
    names.update(__r2r_call__=call, __r2r_leaf__=leaf, __r2r_assert__=host_assert)
    bind(names, spec, call)

    def finish(test: int, status: str, value: Any, duration: float) -> None:
        found = current() if state["owner"] == test else tests.get(test, {})
        status, detail = outcome(status, value)
        emit(i=test, status=status, detail=detail, calls=found.get("calls", []),
             inst=found.get("inst", []), duration=found.get("time", 0.0))

    run_steps(spec, names, state, budget, finish)


def calls(spec: dict[str, Any], emit: Callable[..., None], budget: Callable[[], float]) -> None:
    """Each test's calls in order. A call that raises ends a test marked ``stop`` (a
    host-decided one: its assert would raise); in another test, the exception is the
    call's answer (``x``: position, class names, message) and the next call follows, and
    a call's changes to its arguments are reported (``m``: position, arguments after it)
    for the checker to apply."""
    module = load_program(spec, budget)
    if type(module) is tuple:
        for test in spec["tests"]:
            emit(i=test["i"], status=module[0], detail=module[1], o=[], duration=0.0)
        return
    function = getattr(module, spec["entry_point"])
    tagged = harness.tagged
    for test in spec["tests"]:
        outputs: list[Any] = []
        raised: list[Any] = []
        changed: list[Any] = []

        def action(test: dict[str, Any] = test, outputs: list[Any] = outputs,
                   raised: list[Any] = raised, changed: list[Any] = changed) -> None:
            stop = test["stop"]
            for position, (args, kwargs) in enumerate(test["calls"]):
                before = None if stop else [tagged(args), tagged(kwargs)]
                try:
                    outputs.append(tagged(function(*args, **kwargs)))
                except (harness.Timeout, harness.NonPlain):
                    raise
                except BaseException as exc:
                    if stop:
                        raise
                    outputs.append(None)
                    raised.append([position, harness.class_names(type(exc)), harness.message(exc)])
                if before is not None:
                    after = [tagged(args), tagged(kwargs)]
                    if after != before:
                        changed.append([position, after])

        status, value, duration = harness.timed(action, min(test["budget"], budget()))
        ended = harness.class_names(type(value)) if isinstance(value, BaseException) else []
        status, detail = outcome(status, value)
        emit(i=test["i"], status=status, detail=detail, raised=ended, o=outputs, x=raised,
             m=changed, duration=duration)


def stand_in(raised: list[Any]) -> BaseException:
    """An exception like the one the candidate raised: the nearest builtin class, its message."""
    names, text = raised
    for name in names:
        cls = harness.PRISTINE.get(name)
        if isinstance(cls, type) and issubclass(cls, BaseException):
            try:
                return cls(text) if text else cls()
            except Exception:  # noqa: BLE001, S112 - a class that needs other arguments
                continue
    return Exception(text)


def apply(target: Any, value: Any) -> None:
    """Make the check's argument ``target`` hold what the candidate left in its copy."""
    if type(target) is list or type(target) is bytearray:
        target[:] = value
    elif type(target) is dict or type(target) is set:
        target.clear()
        target.update(value)


def checker(spec: dict[str, Any], emit: Callable[..., None], budget: Callable[[], float]) -> None:
    """``oracle``: per judged test, its calls' (arguments as tagged, value, raised or None,
    arguments after the call or None)."""
    state: dict[str, Any] = {"owner": None}
    used: dict[int, int] = {}
    oracle = spec["oracle"]

    def call(site: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        owner = state["owner"]
        answers = oracle.get(owner, [])
        position = used.get(owner, 0)
        passed = arguments(args, kwargs)
        if position >= len(answers) or answers[position][0] != passed:
            raise Diverged
        used[owner] = position + 1
        _, value, raised, after = answers[position]
        if after is not None:
            for target, changed in zip(args, after[0]):
                apply(target, changed)
            for name, changed in after[1].items():
                apply(kwargs[name], changed)
        if raised is not None:
            raise stand_in(raised)
        return value

    def host_assert(_key: int, check: Callable[[], Any]) -> None:
        if not check():
            raise AssertionError

    names = namespace(spec, {}, budget)
    if isinstance(names, str):
        for test in spec["judge"]:
            emit(i=test, status="error", detail=names)
        return
    names.update(__r2r_call__=call, __r2r_leaf__=lambda _key, value: value,
                 __r2r_assert__=host_assert)
    bind(names, spec, call)

    def finish(test: int, status: str, value: Any, duration: float) -> None:
        if status == "pass" and used.get(test, 0) != len(oracle.get(test, [])):
            status, value = "error", Diverged()
        status, detail = outcome(status, value)
        emit(i=test, status=status, detail=detail, duration=duration)

    run_steps(spec, names, state, budget, finish)
