"""In-sandbox side of record-and-replay grading (copied next to the runner as ``_r2r_replay.py``).

Imported by the runner, never by the plugin; it uses only modules built into the
interpreter plus ``random`` (seeded, so that a check's random inputs repeat).

``record`` runs the instrumented check against the REFERENCE and reports, per
test, every candidate call (arguments, returned value, time) and, for each
host-decided assert, the operands the host cannot compute itself. ``calls`` runs
the CANDIDATE on recorded arguments only and returns what it returned: no test
code, no expected value and no verdict exist in that process. ``checker`` runs the
instrumented check with no candidate code at all: each call is answered with the
candidate's recorded output (after checking that the arguments are the recorded
ones), so its verdicts cannot be forged by the code under test.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class Diverged(BaseException):
    """The check called the candidate with arguments the reference run did not record."""


def run(spec: dict[str, Any], emit: Callable[..., None], budget: Callable[[], float],
        pristine: dict[str, Any], tools: dict[str, Any]) -> None:
    {"record": record, "calls": calls, "checker": checker}[spec["mode"]](
        spec, emit, budget, pristine, tools)


def _import(spec: dict[str, Any], budget: Callable[[], float], tools: dict[str, Any]) -> Any:
    status, module, _ = tools["timed"](lambda: tools["load_module"](spec["module"]), budget())
    if status != "pass":
        detail = tools["describe"](module) if isinstance(module, BaseException) else module
        return ("timeout" if status == "timeout" else "error", f"import failed: {detail}")
    function = getattr(module, spec["entry_point"], None)
    if not callable(function):
        return ("error", f"{spec['module']} does not define {spec['entry_point']}()")
    return module


def _namespace(spec: dict[str, Any], pristine: dict[str, Any], module: Any,
               tools: dict[str, Any], budget: Callable[[], float]) -> dict[str, Any] | str:
    import random

    namespace: dict[str, Any] = {"__name__": "__r2r_check__", "__builtins__": dict(pristine)}
    if spec.get("prompt"):
        tools["timed"](lambda: exec(compile(spec["prompt"], "<prompt>", "exec"), namespace),  # noqa: S102
                       budget())
    if module is not None:
        namespace.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
    status, value, _ = tools["timed"](
        lambda: exec(compile(spec["test"], "<test>", "exec"), namespace), budget())  # noqa: S102
    if status != "pass":
        return f"the test module failed: {value}"
    random.seed(spec["seed"])
    return namespace


def _steps(spec: dict[str, Any], namespace: dict[str, Any], state: dict[str, Any],
           budget: Callable[[], float], tools: dict[str, Any],
           finish: Callable[[int, str, Any, float], None]) -> None:
    """Run the steps; ``finish(test, status, value, duration)`` after each test's own step."""
    pending: tuple[str, Any] | None = None
    for step in spec["steps"]:
        state["owner"] = step["owner"]
        if step["skip"]:
            pending = None
            continue
        code = compile(step["source"], "<check>", "exec")
        status, value, duration = tools["timed"](
            lambda code=code: exec(code, namespace), budget())  # noqa: S102
        if step["test"] is None:
            pending = None if status == "pass" else (status, value)
            continue
        if pending is not None:
            status, value = pending
            pending = None
        finish(step["test"], status, value, duration)


def _failure(status: str, value: Any, tools: dict[str, Any]) -> str:
    if isinstance(value, Diverged):
        return "diverged"
    if isinstance(value, BaseException):
        text = tools["describe"](value) if status == "error" else tools["message"](value)
        return str(text)
    return value if isinstance(value, str) else ""


def record(spec: dict[str, Any], emit: Callable[..., None], budget: Callable[[], float],
           pristine: dict[str, Any], tools: dict[str, Any]) -> None:
    import time

    module = _import(spec, budget, tools)
    if type(module) is tuple:
        return emit(i=-1, status=module[0], detail=module[1])
    function = getattr(module, spec["entry_point"])
    tagged = tools["tagged"]
    state: dict[str, Any] = {"owner": None, "open": None}
    tests: dict[int, dict[str, Any]] = {}

    def current() -> dict[str, Any]:
        return tests.setdefault(state["owner"], {"calls": [], "inst": [], "time": 0.0})

    def call(site: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        entry = {"s": site, "a": tagged(list(args)), "k": tagged(kwargs)}
        start = time.perf_counter()
        value = function(*args, **kwargs)
        elapsed = time.perf_counter() - start
        test = current()
        test["time"] += elapsed
        entry["o"] = tagged(value)
        if state["open"] is not None:
            state["open"]["c"][site] = len(test["calls"])
        test["calls"].append(entry)
        return value

    def leaf(key: int, value: Any) -> Any:
        if state["open"] is not None:
            state["open"]["l"][key] = tagged(value)
        return value

    def host_assert(key: int, check: Callable[[], Any]) -> None:
        state["open"] = instance = {"a": key, "c": {}, "l": {}}
        try:
            holds = check()
        finally:
            state["open"] = None
        current()["inst"].append(instance)
        if not holds:
            raise AssertionError("the reference fails this assert")

    namespace = _namespace(spec, pristine, module, tools, budget)
    if isinstance(namespace, str):
        return emit(i=-1, status="error", detail=namespace)
    namespace.update(__r2r_call__=call, __r2r_leaf__=leaf, __r2r_assert__=host_assert)

    def finish(test: int, status: str, value: Any, duration: float) -> None:
        found = current() if state["owner"] == test else tests.get(test, {})
        emit(i=test, status=status, detail=_failure(status, value, tools),
             calls=found.get("calls", []), inst=found.get("inst", []),
             duration=found.get("time", 0.0))

    _steps(spec, namespace, state, budget, tools, finish)


def calls(spec: dict[str, Any], emit: Callable[..., None], budget: Callable[[], float],
          pristine: dict[str, Any], tools: dict[str, Any]) -> None:
    module = _import(spec, budget, tools)
    if type(module) is tuple:
        for index in range(len(spec["tests"])):
            emit(i=index, status=module[0], detail=module[1], o=[], duration=0.0)
        return
    function = getattr(module, spec["entry_point"])
    for index, test in enumerate(spec["tests"]):
        outputs: list[Any] = []

        def action(test: dict[str, Any] = test, outputs: list[Any] = outputs) -> None:
            for args, kwargs in test["calls"]:
                outputs.append(tools["tagged"](function(*args, **kwargs)))

        status, value, duration = tools["timed"](action, min(test["budget"], budget()))
        raised = tools["class_names"](type(value)) if isinstance(value, BaseException) else []
        emit(i=index, status=status, detail=_failure(status, value, tools), raised=raised,
             o=outputs, duration=duration)


def checker(spec: dict[str, Any], emit: Callable[..., None], budget: Callable[[], float],
            pristine: dict[str, Any], tools: dict[str, Any]) -> None:
    tagged = tools["tagged"]
    state: dict[str, Any] = {"owner": None}
    used: dict[int, int] = {}

    def call(site: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        owner = state["owner"]
        answers = spec["oracle"].get(owner, [])
        position = used.get(owner, 0)
        if position >= len(answers) or answers[position][0] != [tagged(list(args)),
                                                                 tagged(kwargs)]:
            raise Diverged
        used[owner] = position + 1
        return answers[position][1]

    def host_assert(_key: int, check: Callable[[], Any]) -> None:
        if not check():
            raise AssertionError

    namespace = _namespace(spec, pristine, None, tools, budget)
    if isinstance(namespace, str):
        for test in spec["judge"]:
            emit(i=test, status="error", detail=namespace)
        return
    namespace.update(__r2r_call__=call, __r2r_leaf__=lambda _key, value: value,
                     __r2r_assert__=host_assert)

    def finish(test: int, status: str, value: Any, duration: float) -> None:
        if status == "pass" and used.get(test, 0) != len(spec["oracle"].get(test, [])):
            status, value = "error", "diverged"
        emit(i=test, status=status, detail=_failure(status, value, tools), duration=duration)

    _steps(spec, namespace, state, budget, tools, finish)
