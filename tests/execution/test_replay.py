"""Record-and-replay grading: hostile programs cannot forge a verdict, and references still pass."""

from __future__ import annotations

import base64
import marshal
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from pytest_req2rank.execution import grade, grade_probes
from pytest_req2rank.execution._recording import CACHE_ENV, ReferenceCache, default_directory
from pytest_req2rank.models import IsolationLevel, Probe, Task
from pytest_req2rank.sandbox import (
    ExecOutcome,
    ExecRequest,
    ProcessSandbox,
    Sandbox,
    SandboxWrapper,
)
from pytest_req2rank.suites import load_humaneval

TIMEOUT = 0.5
REFERENCE = "def f(x):\n    return x + 1\n"
TEST = ("import math\n\ndef check(candidate):\n    assert candidate(1) == 2\n"
        "    assert abs(candidate(2) - 3) < 1e-6\n"
        "    assert math.isclose(candidate(-1), 0, abs_tol=1e-9)\n")
CHECKER_TEST = "def check(candidate):\n    y = candidate(3)\n    assert y * 2 == 8\n"


class Spy(SandboxWrapper):
    """Delegates to a real sandbox and keeps every request with its harness mode."""

    name = "spy"  # type: ignore[assignment]
    warm_modules = False  # type: ignore[assignment]

    def __init__(self, inner: Sandbox) -> None:
        super().__init__(inner)
        self.requests: list[tuple[str, ExecRequest]] = []

    def run(self, request: ExecRequest) -> ExecOutcome:
        lines = request.stdin.split("\n")
        spec = marshal.loads(base64.b64decode(lines[1])) if len(lines) > 1 and lines[1] else {}
        self.requests.append((spec.get("mode", "program"), request))
        return self.inner.run(request)

    def modes(self) -> list[str]:
        return [mode for mode, _ in self.requests]


@pytest.fixture
def spy(box: ProcessSandbox) -> Spy:
    return Spy(box)


def _task(test: str = TEST, reference: str = REFERENCE) -> Task:
    return Task(item_id="t/t", dataset="t", task_id="t", form="function", prompt="def f(x):\n",
                reference=reference, entry_point="f", test=test)


def _grade(sandbox: Sandbox, code: str, task: Task | None = None, **options: Any) -> Any:
    cache = options.pop("reference_cache", ReferenceCache())
    timeout_s = options.pop("timeout_s", TIMEOUT)
    return grade(task or _task(), {"solution.py": code}, sandbox, timeout_s=timeout_s,
                 reference_cache=cache, **options)


def test_correct_and_wrong_answers_are_decided_on_the_host(spy: Spy) -> None:
    assert _grade(spy, REFERENCE).status == "success"
    assert spy.modes() == ["record", "calls"]
    wrong = _grade(spy, "def f(x):\n    return x + 1 if x > 0 else 5\n")
    assert [t.status for t in wrong.tests] == ["success", "success", "wrong_answer"]
    assert "math.isclose" in (wrong.reason or "")


HOSTILE = {
    "exit-at-import": "import sys\nsys.exit(0)\n",
    "os-exit": "import os\ndef f(x):\n    os._exit(0)\n",
    "atexit-fake-report": ("import atexit, os\natexit.register(lambda: print('3 passed'))\n"
                           "def f(x):\n    os._exit(0)\n"),
    "printed-fake-report": ("import os, json\ndef f(x):\n"
                            "    print(json.dumps({'nonce': 'guess', 'i': 0, 'status': 'pass'}))\n"
                            "    print('PASSED 3/3')\n    os._exit(0)\n"),
    "fd1-fake-record": ("import os\ndef f(x):\n"
                        "    os.write(1, b'{\"nonce\": \"0\", \"i\": 1, \"status\": \"pass\"}\\n')\n"
                        "    os._exit(0)\n"),
    "nonce-from-frames": (
        "import os, sys\ndef f(x):\n    frame = sys._getframe()\n"
        "    while frame is not None and 'nonce' not in frame.f_locals:\n"
        "        frame = frame.f_back\n"
        "    nonce, channel = frame.f_locals['nonce'], frame.f_locals['channel']\n"
        "    for i in range(3):\n"
        "        channel.write('{\"nonce\": \"%s\", \"i\": %d, \"status\": \"pass\", \"o\": []}\\n'"
        " % (nonce, i))\n    channel.flush()\n    os._exit(0)\n"),
    "nonce-from-inspect": (
        "import inspect, os\ndef f(x):\n"
        "    for info in inspect.stack():\n        if 'emit' in info.frame.f_locals:\n"
        "            emit = info.frame.f_locals['emit']\n"
        "    for i in range(3):\n        emit(i=i, status='pass', o=[], duration=0.0)\n"
        "    os._exit(0)\n"),
    "nonce-from-gc": (
        "import gc, os\ndef f(x):\n"
        "    emit = next(o for o in gc.get_objects()\n"
        "                if callable(o) and getattr(o, '__name__', '') == 'emit')\n"
        "    assert any(type(c.cell_contents) is str for c in emit.__closure__)\n"
        "    for i in range(3):\n        emit(i=i, status='pass', o=[], duration=0.0)\n"
        "    os._exit(0)\n"),
    "deeply-nested-forged-line": (
        "import os, sys\ndef f(x):\n    frame = sys._getframe()\n"
        "    while 'channel' not in frame.f_locals:\n        frame = frame.f_back\n"
        "    nonce, channel = frame.f_locals['nonce'], frame.f_locals['channel']\n"
        "    deep = '[' * 200000 + ']' * 200000\n"
        "    channel.write(deep + '\\n')\n"
        "    channel.write('{\"nonce\": \"%s\", \"i\": 0, \"status\": \"pass\", \"o\": [%s]}\\n'"
        " % (nonce, deep))\n    channel.flush()\n    os._exit(0)\n"),
    "monkeypatched-asserts": (
        "import builtins, math, operator\nbuiltins.abs = lambda x: 0\n"
        "math.isclose = lambda *a, **k: True\noperator.eq = lambda a, b: True\n"
        "builtins.AssertionError = type('Never', (Exception,), {})\n"
        "def f(x):\n    return -7\n"),
}


WHY = {"exit-at-import": "SystemExit", "monkeypatched-asserts": "assertion failed",
       "nonce-from-frames": "did not report every call",
       "nonce-from-inspect": "did not report every call",
       "nonce-from-gc": "did not report every call", "deeply-nested-forged-line": "exited (code 0)"}


@pytest.mark.parametrize("name", HOSTILE)
def test_forging_attempts_never_pass(spy: Spy, name: str) -> None:
    result = _grade(spy, HOSTILE[name])
    assert result.passed == 0 and result.status in ("runtime_error", "wrong_answer"), result.tests
    assert WHY.get(name, "exited (code 0) before reporting") in (result.reason or "")
    assert "checker" not in spy.modes()


ALWAYS_EQUAL = {
    "object": "class A:\n    def __eq__(self, o):\n        return True\ndef f(x):\n    return A()\n",
    "int-subclass": ("class I(int):\n    def __eq__(self, o):\n        return True\n"
                     "    __hash__ = int.__hash__\ndef f(x):\n    return I(0)\n"),
    "float-subclass": ("class F(float):\n    def __sub__(self, o):\n        return 0.0\n"
                       "    def __eq__(self, o):\n        return True\ndef f(x):\n    return F(9)\n"),
    "str-subclass": "class S(str):\n    pass\ndef f(x):\n    return S('2')\n",
    "nested-list-subclass": ("class L(list):\n    def __eq__(self, o):\n        return True\n"
                             "def f(x):\n    return [L()]\n"),
    "hash-trick-in-set": ("class H:\n    __hash__ = lambda s: 1\n    __eq__ = lambda s, o: True\n"
                          "def f(x):\n    return {H()}\n"),
    "self-referential": "def f(x):\n    v = []\n    v.append(v)\n    return v\n",
    "nan": "def f(x):\n    return float('nan')\n",
    "huge-int": "def f(x):\n    return 10 ** 5000\n",
}


@pytest.mark.parametrize("code", ALWAYS_EQUAL.values(), ids=ALWAYS_EQUAL.keys())
def test_values_cross_the_type_firewall(spy: Spy, code: str) -> None:
    result = _grade(spy, code)
    assert result.status == "wrong_answer" and result.passed == 0, result.tests


def test_expected_values_never_reach_the_candidates_process(spy: Spy) -> None:
    secret = "s3cr3t-1b0e6f9a"
    task = _task(test=f"def check(candidate):\n    assert candidate(1) == {secret!r}\n",
                 reference=f"def f(x):\n    return {secret!r}\n")
    snoop = ("import gc, os, sys\ndef f(x):\n    found = []\n"
             "    for name in os.listdir('.'):\n        found.append(open(name).read())\n"
             "    found += [o for o in gc.get_objects() if type(o) is str]\n"
             "    for o in gc.get_objects():\n        if type(o) is dict:\n"
             "            found += [v for v in o.values() if type(v) is str]\n"
             "    hits = [s for s in found if 's3' + 'cr3t-1b0e' in s]\n"
             "    return hits[0] if hits else 'not found'\n")
    result = _grade(spy, snoop, task)
    assert result.status == "wrong_answer" and secret not in (result.tests[0].actual or "")
    calls = [request for mode, request in spy.requests if mode == "calls"]
    assert calls and all(secret not in r.stdin and secret not in str(r.files) for r in calls)


LOOP_TEST = ("def check(candidate):\n    assert candidate(1) == 2\n"
             "    for x in range(5):\n        assert candidate(x) == x + 1\n")


@pytest.mark.parametrize(("code", "statuses"), [
    (REFERENCE, ["success", "success"]),
    ("def f(x):\n    return 2 if x == 1 else x\n", ["success", "wrong_answer"]),
    ("def f(x):\n    return x + 1 if x < 4 else 1 // 0\n", ["success", "runtime_error"]),
    ("def f(x):\n    return 0\n", ["wrong_answer", "wrong_answer"]),
], ids=["ok", "wrong-in-loop", "crash-in-loop", "wrong"])
def test_verdicts_do_not_depend_on_who_predicts_the_calls(spy: Spy, code: str,
                                                          statuses: list[str]) -> None:
    """The reference's run predicts the calls; without a usable reference the candidate's
    own run does, and its verdicts are still decided without its code."""
    for reference in (REFERENCE, "", "def f(x):\n    raise ValueError\n"):
        spy.requests.clear()
        result = _grade(spy, code, _task(LOOP_TEST, reference=reference))
        assert [t.status for t in result.tests] == statuses, (reference, result.tests)
        if reference != REFERENCE and "success" in statuses:
            assert spy.modes()[-3:] == ["record", "calls", "checker"], spy.modes()


def test_a_candidate_raising_assertion_error_is_a_wrong_answer(spy: Spy) -> None:
    result = _grade(spy, "def f(x):\n    assert x > 5\n    return x + 1\n")
    assert [t.status for t in result.tests] == ["wrong_answer"] * 3


@pytest.mark.parametrize(("code", "status"), [
    (REFERENCE, "success"),
    ("def f(x):\n    return x\n", "wrong_answer"),
    ("import os\ndef f(x):\n    os._exit(0)\n", "runtime_error"),
    (("class A:\n    __eq__ = lambda s, o: True\n    __mul__ = lambda s, o: 8\n"
     "def f(x):\n    return A()\n"), "wrong_answer"),
    ("def f(x):\n    while True:\n        pass\n", "timeout"),
])
def test_tests_the_host_cannot_decide_run_without_candidate_code(spy: Spy, code: str,
                                                                 status: str) -> None:
    result = _grade(spy, code, _task(test=CHECKER_TEST))
    assert result.status == status, result.tests
    checker = [request for mode, request in spy.requests if mode == "checker"]
    assert len(checker) == (1 if status in ("success", "wrong_answer") and "A()" not in code else 0)
    assert all("solution.py" not in request.files for request in checker)


FEEDBACK_TEST = "def check(candidate):\n    x = candidate(1)\n    assert candidate(x) == 4\n"


def test_a_check_that_feeds_outputs_back_is_replayed_on_the_candidates_own_calls(
        spy: Spy) -> None:
    task = _task(test=FEEDBACK_TEST, reference="def f(x):\n    return 2 * x\n")
    other = "def f(x):\n    return 4 if x == 3 else x + 2\n"
    result = _grade(spy, other, task)
    assert result.status == "success", result.tests
    assert spy.modes() == ["record", "calls", "checker", "record", "calls", "checker"]
    [record, calls] = [r for mode, r in spy.requests[3:5]]
    assert "solution.py" in record.files and calls.files["solution.py"] == other
    assert "solution.py" not in spy.requests[-1][1].files  # the verdict: no candidate code
    assert _grade(spy, "def f(x):\n    return 3 if x == 1 else 5\n", task).status == "wrong_answer"


def test_a_program_that_does_not_answer_the_same_twice_is_a_runtime_error(spy: Spy) -> None:
    task = _task(test=FEEDBACK_TEST, reference="def f(x):\n    return 2 * x\n")
    clock = "import time\ndef f(x):\n    return time.perf_counter_ns()\n"
    result = _grade(spy, clock, task)
    assert result.status == "runtime_error" and "does not answer the same twice" in (
        result.reason or ""), result.tests


@pytest.mark.parametrize(("code", "status"), [
    ("def f(xs):\n    xs.sort()\n", "success"),
    ("def f(xs):\n    return sorted(xs)\n", "wrong_answer"),
    ("def f(xs):\n    xs.append(0)\n", "wrong_answer"),
])
def test_changes_to_arguments_reach_the_checker(spy: Spy, code: str, status: str) -> None:
    """The check inspects an argument after a call: the candidate's changes are applied."""
    test = ("def check(candidate):\n    xs = [3, 1, 2]\n    candidate(xs)\n"
            "    assert xs == [1, 2, 3]\n    d = {'b': [2]}\n    candidate(d['b'])\n"
            "    assert d == {'b': [2]}\n")
    task = _task(test=test, reference="def f(xs):\n    xs.sort()\n")
    result = _grade(spy, code, task)
    assert result.status == status, result.tests
    assert [mode for mode in spy.modes() if mode != "record"] == ["calls", "checker"]


RAISING_TEST = ("def check(candidate):\n    assert candidate(1) == 2\n"
                "    try:\n        candidate(-1)\n    except ValueError as exc:\n"
                "        assert 'negative' in str(exc)\n    else:\n        assert False\n")


@pytest.mark.parametrize(("code", "statuses"), [
    ("def f(x):\n    if x < 0:\n        raise ValueError('negative')\n    return x + 1\n",
     ["success", "success"]),
    (("class E(ValueError):\n    pass\ndef f(x):\n    if x < 0:\n        raise E('negative')\n"
      "    return x + 1\n"), ["success", "success"]),
    ("def f(x):\n    return x + 1\n", ["success", "wrong_answer"]),
    ("def f(x):\n    if x < 0:\n        raise ValueError('other')\n    return x + 1\n",
     ["success", "wrong_answer"]),
    ("def f(x):\n    if x < 0:\n        raise TypeError('negative')\n    return x + 1\n",
     ["success", "runtime_error"]),
], ids=["raises", "raises-subclass", "returns", "other-message", "other-class"])
def test_an_exception_the_check_expects_is_an_answer(spy: Spy, code: str,
                                                    statuses: list[str]) -> None:
    reference = "def f(x):\n    if x < 0:\n        raise ValueError('negative')\n    return x + 1\n"
    for task in (_task(RAISING_TEST, reference=reference), _task(RAISING_TEST, reference="")):
        result = _grade(spy, code, task)
        assert [t.status for t in result.tests] == statuses, result.tests


@pytest.mark.parametrize("lines", [
    ("assert apply(candidate, 1) == 2",), ("assert candidate(*[1]) == 2",),
    ("g = candidate", "assert g(1) == 2"),
    ("if candidate(0) == 1:", "    assert candidate(1) == 2", "    return", "assert False"),
], ids=["as-argument", "starred", "assigned", "top-level-return"])
def test_checks_that_cannot_be_instrumented_are_decided_without_candidate_code(
        spy: Spy, lines: tuple[str, ...]) -> None:
    test = ("def apply(function, value):\n    return function(value)\n\n"
            "def check(candidate):\n" + "".join(f"    {line}\n" for line in lines))
    task = _task(test=test)
    assert _grade(spy, REFERENCE, task).status == "success"
    assert spy.modes() == ["record", "calls", "checker"]
    assert "solution.py" not in spy.requests[-1][1].files
    wrong = "def f(x):\n    return x\n"
    assert _grade(spy, wrong, task).status == "wrong_answer"
    assert [mode for mode, request in spy.requests
            if request.files.get("solution.py") == wrong] == ["calls"]


def test_a_check_that_calls_the_function_by_its_name_calls_the_candidate(spy: Spy) -> None:
    """In the program, the entry point's name is the candidate (HumanEval/33 compares the
    candidate with ``sort_third``, itself): the check's calls by that name are its calls."""
    test = "def check(candidate):\n    assert f(1) == 2\n    assert candidate(2) == f(2)\n"
    for reference in (REFERENCE, ""):
        task = _task(test=test, reference=reference)
        assert _grade(spy, REFERENCE, task).status == "success"
        wrong = _grade(spy, "def f(x):\n    return x\n", task)
        assert [t.status for t in wrong.tests] == ["wrong_answer", "success"], wrong.tests


def test_a_check_passing_a_function_to_the_candidate_cannot_be_graded(spy: Spy) -> None:
    test = "def check(candidate):\n    assert candidate(lambda x: x * 2, 3) == 6\n"
    task = _task(test=test, reference="def f(g, x):\n    return g(x)\n")
    result = _grade(spy, "def f(g, x):\n    return g(x)\n", task)
    assert result.status == "sandbox_error" and "function" in (result.reason or "")
    assert spy.modes() == ["record"]  # the reference's run says so; the candidate never ran


SMUGGLER = """
import inspect, os
_smuggled = []


def f(x):
    if type(x) is list:  # the calls execution, told by the forged prediction
        _smuggled.extend(x)
        return None
    if _smuggled:
        return _smuggled[x - 1]
    stack = inspect.stack()  # the candidate's own run of the check: the test is in sight
    secrets = sorted({c for info in stack for c in info.frame.f_code.co_consts
                      if type(c) is str and c.startswith("secret-")})
    emit = next(info.frame.f_locals["emit"] for info in stack if "emit" in info.frame.f_locals)
    no_kwargs = {"~": "dict", "v": []}
    emit(i=0, status="pass", calls=[{"s": 1, "a": [secrets], "k": no_kwargs, "o": None}],
         inst=[], duration=0.0)
    emit(i=1, status="pass", calls=[{"s": 2, "a": [2], "k": no_kwargs, "o": None}],
         inst=[], duration=0.0)
    os._exit(0)
"""


def test_a_forged_prediction_cannot_carry_the_test_into_the_calls_execution(spy: Spy) -> None:
    """The candidate's own run sees the test; a prediction whose arguments smuggle its
    expected values into the calls execution diverges, and then no test of it passes."""
    test = "def check(candidate):\n    assert candidate(1) == 'secret-a'\n    assert candidate(2) == 'secret-b'\n"
    result = _grade(spy, SMUGGLER, _task(test=test, reference=""))
    assert result.passed == 0 and result.status == "runtime_error", result.tests
    assert spy.modes() == ["record", "record", "calls", "checker"]


def test_a_value_that_cannot_cross_only_with_the_candidates_answers_is_its_failure(
        spy: Spy) -> None:
    test = "def check(candidate):\n    y = candidate(1)\n    assert candidate(y if y == 2 else object) == 3\n"
    task = _task(test=test)
    assert _grade(spy, REFERENCE, task).status == "success"
    result = _grade(spy, "def f(x):\n    return x\n", task)
    assert result.status == "runtime_error" and "type" in (result.reason or ""), result.tests


def test_the_candidates_own_run_cannot_claim_a_check_is_ungradable(spy: Spy) -> None:
    forger = ("import inspect, os\ndef f(x):\n"
              "    for info in inspect.stack():\n        if 'emit' in info.frame.f_locals:\n"
              "            emit = info.frame.f_locals['emit']\n"
              "    for i in range(3):\n"
              "        emit(i=i, status='unsupported', detail='', calls=[], inst=[], duration=0)\n"
              "    os._exit(0)\n")
    result = _grade(spy, forger, _task(reference=""))
    assert result.status == "runtime_error" and result.passed == 0, result.tests


def test_timeouts_are_calibrated_on_the_reference(spy: Spy) -> None:
    slow = "import time\ndef f(x):\n    time.sleep(0.7)\n    return x + 1\n"
    task = _task(test="def check(candidate):\n    assert candidate(1) == 2\n", reference=slow)
    cache = ReferenceCache()
    tight = _grade(spy, slow, task, reference_cache=cache, timeout_s=5, multiple=0.0, floor_s=0.3)
    # The floor (0.3 s), not the 5 s ceiling; what the program's own budget has left may be
    # a little less on a loaded machine.
    budget = re.search(r"took longer than ([0-9.]+) s", tight.reason or "")
    assert tight.status == "timeout" and budget and 0.1 < float(budget[1]) <= 0.3, tight.reason
    # 4 x 0.7 s within the 5 s ceiling; the default 0.5 s ceiling would stop it.
    assert _grade(spy, slow, task, reference_cache=cache, timeout_s=5).status == "success"
    assert _grade(spy, slow, task, reference_cache=cache).status == "timeout"
    assert spy.modes().count("record") == 1


def test_output_limits_follow_the_reference(spy: Spy) -> None:
    reference = "def f(n):\n    return list(range(n))\n"
    task = _task(test="def check(candidate):\n    assert len(candidate(200000)) == 200000\n",
                 reference=reference)
    assert _grade(spy, reference, task).status == "success"
    # A generous budget: serialising the flood is slow on a loaded machine.
    flood = _grade(spy, "def f(n):\n    return list(range(n * 10))\n", task, timeout_s=10,
                   floor_s=10)
    assert flood.status == "wrong_answer" and "bytes to report" in (flood.reason or "")


def test_recordings_are_cached_on_disk(box: ProcessSandbox, tmp_path: Path) -> None:
    first, second = Spy(box), Spy(box)
    assert _grade(first, REFERENCE, reference_cache=ReferenceCache(tmp_path)).status == "success"
    assert _grade(second, REFERENCE, reference_cache=ReferenceCache(tmp_path)).status == "success"
    assert first.modes() == ["record", "calls"] and second.modes() == ["calls"]
    assert len(_recordings(tmp_path)) == 1


def test_a_failed_reference_run_is_not_kept_on_disk(box: ProcessSandbox, tmp_path: Path) -> None:
    task = _task(reference="def f(x):\n    raise RuntimeError('broken reference')\n")
    _grade(Spy(box), REFERENCE, task, reference_cache=ReferenceCache(tmp_path))
    again = Spy(box)
    _grade(again, REFERENCE, task, reference_cache=ReferenceCache(tmp_path))
    assert _recordings(tmp_path) == [] and again.modes()[0] == "record"


def _recordings(directory: Path) -> list[Path]:
    return list(directory.glob("*.json"))


def test_the_default_cache_directory(box: ProcessSandbox, tmp_path: Path) -> None:
    assert default_directory({"XDG_CACHE_HOME": str(tmp_path)}) == (
        tmp_path / "pytest-req2rank" / "references")
    assert default_directory({CACHE_ENV: str(tmp_path), "XDG_CACHE_HOME": "/elsewhere"}) == tmp_path
    assert default_directory({CACHE_ENV: ""}) is None
    unwritable = tmp_path / "file"
    unwritable.write_text("")
    cache = ReferenceCache(unwritable / "below")  # a directory that cannot be made
    assert _grade(Spy(box), REFERENCE, reference_cache=cache).status == "success"


PERTURB = '''
_r2r_original = {entry}


def _r2r_perturb(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, (list, tuple)):
        return type(value)([*value, 0]) if not value else type(value)(value[1:])
    return 0 if value is None else None


def {entry}(*args, **kwargs):
    return _r2r_perturb(_r2r_original(*args, **kwargs))
'''


def _variants(tasks: list[Task], box: Sandbox) -> dict[str, tuple[str, str]]:
    """Each task's (reference, wrong variant) statuses, both graded by replay."""
    found: dict[str, tuple[str, str]] = {}
    for task in tasks:
        wrong = task.reference + PERTURB.format(entry=task.entry_point)
        statuses = [grade(task, {"solution.py": code}, box, timeout_s=5).status
                    for code in (task.reference, wrong)]
        found[task.task_id] = (statuses[0], statuses[1])
    return found


def test_humaneval_references_pass_and_wrong_variants_fail_sample(box: ProcessSandbox) -> None:
    found = _variants(random.Random(3).sample(load_humaneval(), 12), box)
    assert all(ref == "success" and wrong != "success" for ref, wrong in found.values()), found


@pytest.mark.slow
def test_humaneval_all_references_pass_and_wrong_variants_fail(box: ProcessSandbox) -> None:
    found = _variants(load_humaneval(), box)
    assert {k: v for k, v in found.items() if v[0] != "success" or v[1] == "success"} == {}


class Bare(Sandbox):
    """A backend that sets no environment at all (as a remote service may): a plain subprocess."""

    name = "bare"

    @property
    def isolation(self) -> str:
        return "none (test double)"

    @property
    def isolation_level(self) -> IsolationLevel:
        return "rlimits"

    def run(self, request: ExecRequest) -> ExecOutcome:
        with tempfile.TemporaryDirectory() as work:
            for name, text in request.all_files().items():
                Path(work, name).write_text(text)
            done = subprocess.run([sys.executable, "-I", *request.argv[1:]], cwd=work, env={},
                                  input=request.stdin, capture_output=True, text=True,
                                  timeout=request.timeout_s, check=False)
        return ExecOutcome(exit_code=done.returncode, stdout=done.stdout, stderr=done.stderr)


def test_the_harness_makes_its_environment_deterministic() -> None:
    seeded = subprocess.run([sys.executable, "-c", "print(hash('abc'))"],
                            env={"PYTHONHASHSEED": "0"},
                            capture_output=True, text=True, check=True).stdout.strip()
    probe = Probe(name="env", code="import os, time\nresult = [hash('abc'), time.tzname[0], "
                  "os.environ['OMP_NUM_THREADS']]", expect=[int(seeded), "UTC", "1"])
    result = grade_probes({}, [probe], Bare(), timeout_s=5)
    assert result.status == "success", result.tests
