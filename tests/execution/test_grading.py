"""Grading: every status in both suite forms, forged passes, probes, and sandbox failures."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_req2rank.execution import extract_code, grade, grade_probes
from pytest_req2rank.execution._compare import outputs_match, values_match
from pytest_req2rank.models import IOCase, IsolationLevel, Probe, Task
from pytest_req2rank.sandbox import ExecOutcome, ExecRequest, ProcessSandbox, Sandbox
from pytest_req2rank.suites import load_humaneval, load_jsonl

DATA = Path(__file__).parent.parent / "data"
TIMEOUT = 0.5


@pytest.fixture(scope="module")
def sandbox() -> Iterator[ProcessSandbox]:
    box = ProcessSandbox()
    yield box
    box.close()


def _status_cases() -> list[tuple[Task, str]]:
    tasks = {task.task_id: task for task in load_jsonl(DATA / "status_suite.jsonl")}
    samples = [json.loads(line) for line in (DATA / "status_samples.jsonl").read_text().splitlines()]
    return [(tasks[s["task_id"]], s["completion"]) for s in samples]


EXPECTED = {"ok": "success", "wrong": "wrong_answer", "syntax": "syntax_error",
            "crash": "runtime_error", "loop": "timeout", "partial": "wrong_answer"}


@pytest.mark.parametrize(("task", "completion"), _status_cases(),
                         ids=[task.task_id for task, _ in _status_cases()])
def test_every_status_in_both_forms(sandbox: ProcessSandbox, task: Task, completion: str) -> None:
    extracted = extract_code(completion, entry_point=task.entry_point, prompt=task.prompt)
    files = extracted.files if extracted else {"solution.py": completion}
    result = grade(task, files, sandbox, timeout_s=TIMEOUT)
    kind = task.task_id.split("_", 1)[1]
    assert result.status == EXPECTED[kind], result.reason
    assert result.total == 3
    if kind == "partial":
        assert 0 < result.pass_ratio < 1
    if kind == "ok":
        assert result.pass_ratio == 1 and result.reason is None and result.duration_s > 0
    if kind == "syntax":
        assert result.duration_s == 0 and "SyntaxError" in (result.reason or "")


def _task(test: str, entry: str = "f", prompt: str = "def f(x):\n") -> Task:
    return Task(item_id="t/t", dataset="t", task_id="t", form="function", prompt=prompt,
                reference="", entry_point=entry, test=test)


TEST = ("def check(candidate):\n    assert candidate(1) == 2\n    assert candidate(2) == 3\n"
        "    assert candidate(-1) == 0\n")


def _statuses(sandbox: Sandbox, code: str, test: str = TEST) -> list[str]:
    result = grade(_task(test), {"solution.py": code}, sandbox, timeout_s=TIMEOUT)
    return [t.status for t in result.tests]


def test_one_looping_test_does_not_sink_the_others(sandbox: ProcessSandbox) -> None:
    code = "def f(x):\n    while x < 0:\n        pass\n    return x + 1\n"
    assert _statuses(sandbox, code) == ["success", "success", "timeout"]


def test_setup_statements_run_before_the_asserts_that_follow(sandbox: ProcessSandbox) -> None:
    test = ("def check(candidate):\n    base = candidate(0)\n    assert base == 1\n"
            "    table = {k: candidate(k) for k in range(3)}\n    assert table[2] == base + 2\n")
    result = grade(_task(test), {"solution.py": "def f(x):\n    return x + 1\n"}, sandbox,
                   timeout_s=TIMEOUT)
    assert [t.name for t in result.tests] == ["check[0]", "check[1]"]
    assert result.status == "success"


def test_check_without_top_level_asserts_is_one_test(sandbox: ProcessSandbox) -> None:
    test = "def check(candidate):\n    for x in range(5):\n        assert candidate(x) == x + 1\n"
    assert _statuses(sandbox, "def f(x):\n    return x + 1\n", test) == ["success"]
    assert _statuses(sandbox, "def f(x):\n    return 1\n", test) == ["wrong_answer"]


def test_crash_at_import_fails_every_test(sandbox: ProcessSandbox) -> None:
    result = grade(_task(TEST), {"solution.py": "import nonexistent_module\ndef f(x):\n    return x\n"},
                   sandbox, timeout_s=TIMEOUT)
    assert [t.status for t in result.tests] == ["runtime_error"] * 3
    assert "ModuleNotFoundError" in (result.reason or "")


def test_missing_entry_point_is_a_runtime_error(sandbox: ProcessSandbox) -> None:
    assert _statuses(sandbox, "def g(x):\n    return x + 1\n") == ["runtime_error"] * 3


@pytest.mark.parametrize("code", [
    "import sys\nsys.exit(0)\n",
    "import os\ndef f(x):\n    os._exit(0)\n",
    "import atexit, os\natexit.register(lambda: print('3 passed'))\ndef f(x):\n    os._exit(0)\n",
    ("import os\ndef f(x):\n    print(json.dumps({'nonce': 'guess', 'i': 0, 'status': 'pass'}))\n"
     "    print('PASSED 3/3')\n    os._exit(0)\nimport json\n"),
    ("import os, sys\ndef f(x):\n    os.write(1, b'{\"nonce\": \"0\", \"i\": 1, \"status\": \"pass\"}\\n')\n"
     "    sys.stdout.flush()\n    os._exit(0)\n"),
], ids=["exit-at-import", "os-exit", "atexit-fake-report", "printed-fake-report", "fd1-fake-record"])
def test_early_exit_and_forged_reports_never_pass(sandbox: ProcessSandbox, code: str) -> None:
    result = grade(_task(TEST), {"solution.py": code}, sandbox, timeout_s=TIMEOUT)
    assert result.passed == 0 and result.status == "runtime_error", result.tests


@pytest.mark.parametrize("code", [
    "class Any:\n    def __eq__(self, other):\n        return True\ndef f(x):\n    return Any()\n",
    ("class I(int):\n    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__\n"
     "def f(x):\n    return I(0)\n"),
    "class L(list):\n    def __eq__(self, other):\n        return True\ndef f(x):\n    return [L()]\n",
], ids=["object", "int-subclass", "nested-list-subclass"])
def test_always_equal_values_fail(sandbox: ProcessSandbox, code: str) -> None:
    result = grade(_task(TEST), {"solution.py": code}, sandbox, timeout_s=TIMEOUT)
    assert result.status == "wrong_answer" and result.passed == 0
    assert "non-plain value" in (result.reason or "")


def test_helpers_from_the_prompt_are_available_to_the_test(sandbox: ProcessSandbox) -> None:
    prompt = "def helper(x):\n    return x * 10\n\n\ndef f(x):\n"
    test = "def check(candidate):\n    assert candidate(helper(1)) == 11\n"
    task = _task(test, prompt=prompt)
    result = grade(task, {"solution.py": "def f(x):\n    return x + 1\n"}, sandbox, timeout_s=TIMEOUT)
    assert result.status == "success", result.reason


class _Failing(Sandbox):
    """Fails like a broken sandbox ``failures`` times, then delegates."""

    name = "failing"

    def __init__(self, inner: Sandbox | None, failures: int) -> None:
        self.inner, self.failures, self.calls = inner, failures, 0
        self.requests: list[ExecRequest] = []

    @property
    def isolation(self) -> str:
        return "test double"

    @property
    def isolation_level(self) -> IsolationLevel:
        return self.inner.isolation_level if self.inner is not None else "rlimits"

    def run(self, request: ExecRequest) -> ExecOutcome:
        self.calls += 1
        self.requests.append(request)
        if self.calls <= self.failures or self.inner is None:
            return ExecOutcome(error="cannot spawn: resource temporarily unavailable")
        return self.inner.run(request)


def test_sandbox_failure_is_retried_once_then_sandbox_error(sandbox: ProcessSandbox) -> None:
    task = _task(TEST)
    code = {"solution.py": "def f(x):\n    return x + 1\n"}
    flaky = _Failing(sandbox, failures=1)
    assert grade(task, code, flaky, timeout_s=TIMEOUT).status == "success"
    # the failed request is repeated once, unchanged (a recording run of the reference may precede
    # the candidate's run, so the total number of calls depends on the task)
    assert flaky.requests[0] == flaky.requests[1] and flaky.calls >= 2
    broken = _Failing(None, failures=2)
    result = grade(task, code, broken, timeout_s=TIMEOUT)
    assert result.status == "sandbox_error" and broken.calls == 2
    assert "resource temporarily unavailable" in (result.reason or "")


def test_syntax_errors_never_reach_the_sandbox() -> None:
    never = _Failing(None, failures=99)
    result = grade(_task(TEST), {"solution.py": "def f(x) return x\n"}, never, timeout_s=TIMEOUT)
    assert result.status == "syntax_error" and never.calls == 0 and result.total == 3


def _io_task(*cases: tuple[str, str]) -> Task:
    return Task(item_id="t/io", dataset="t", task_id="io", form="io", prompt="", reference="",
                cases=tuple(IOCase(input=i, output=o) for i, o in cases))


@pytest.mark.parametrize(("code", "status", "detail"), [
    ("print(float(input()) / 3, '  ')\nprint()\nprint()\n", "success", ""),
    ("while True:\n    print('y' * 10000)\n", "wrong_answer", "output limit exceeded"),
    ("x = bytearray(4 * 1024 ** 3)\n", "runtime_error", "MemoryError"),
    ("import sys\nprint('bad input', file=sys.stderr)\nsys.exit(2)\n", "runtime_error", "bad input"),
])
def test_io_verdicts(sandbox: ProcessSandbox, code: str, status: str, detail: str) -> None:
    result = grade(_io_task(("1\n", "0.3333333333\n")), {"solution.py": code}, sandbox, timeout_s=2)
    assert result.status == status and detail in (result.reason or "")


def test_io_multi_file_answer(sandbox: ProcessSandbox) -> None:
    files = {"solution.py": "from lib.ops import add\nprint(add(*map(int, input().split())))\n",
             "lib/__init__.py": "", "lib/ops.py": "def add(a, b):\n    return a + b\n"}
    assert grade(_io_task(("1 2\n", "3\n")), files, sandbox, timeout_s=2).status == "success"


SOLUTION = {"shop.py": (
    "class OutOfStock(LookupError):\n    pass\n\n"
    "class Shop:\n    def __init__(self):\n        self.items = {'tea': (2, 0.1)}\n"
    "    def price(self, name):\n        if name not in self.items:\n            raise OutOfStock(name)\n"
    "        count, unit = self.items[name]\n        return count * unit * 3\n"
    "    def stock(self):\n        return {'tea': (2, 'box')}\n"
)}


def test_probes_are_judged_on_the_host(sandbox: ProcessSandbox) -> None:
    secret = "expected-value-that-never-enters-the-sandbox"
    probes = [
        Probe(name="float", code="result = Shop().price('tea')", expect=0.6),
        Probe(name="tuple-is-list", code="result = Shop().stock()", expect={"tea": ["2", "box"]}),
        Probe(name="tuple-as-list", code="result = Shop().stock()", expect={"tea": [2, "box"]}),
        Probe(name="raises", code="result = Shop().price('milk')", raises="OutOfStock"),
        Probe(name="raises-base", code="result = Shop().price('milk')", raises="LookupError"),
        Probe(name="wrong-exception", code="result = Shop().price('milk')", raises="KeyError"),
        Probe(name="unexpected-raise", code="result = Shop().price(None)", expect=secret),
        Probe(name="no-raise", code="result = Shop().price('tea')", raises="OutOfStock"),
        Probe(name="no-result", code="x = 1", expect=1),
        Probe(name="loop", code="while True:\n    pass", expect=1),
        Probe(name="after-loop", code="result = [1, 2.0000000001]", expect=(1, 2)),
    ]
    spy = _Failing(sandbox, failures=0)
    result = grade_probes(SOLUTION, probes, spy, timeout_s=TIMEOUT, setup="from shop import Shop")
    statuses = {t.name: t.status for t in result.tests}
    assert statuses == {
        "float": "success", "tuple-is-list": "wrong_answer", "tuple-as-list": "success",
        "raises": "success", "raises-base": "success", "wrong-exception": "wrong_answer",
        "unexpected-raise": "runtime_error", "no-raise": "wrong_answer",
        "no-result": "runtime_error", "loop": "timeout", "after-loop": "timeout",
    }
    details = {t.name: t.detail for t in result.tests}
    assert details["after-loop"] == "not run: an earlier test timed out", details
    assert result.passed == 4 and result.pass_ratio == 4 / 11
    assert all(secret not in request.stdin and secret not in str(request.files)
               for request in spy.requests)


@pytest.mark.parametrize("value", [
    "type('Any', (), {'__eq__': lambda s, o: True})()",
    "type('I', (int,), {'__eq__': lambda s, o: True})(1)",
    "type('S', (str,), {})('a')",
    "{1: 'non-str key'}",
])
def test_probe_type_firewall(sandbox: ProcessSandbox, value: str) -> None:
    result = grade_probes({}, [Probe(name="p", code=f"result = {value}", expect=1)], sandbox,
                          timeout_s=TIMEOUT)
    assert result.status == "wrong_answer" and "non-plain value" in (result.reason or "")


def test_probe_nan_and_infinity_cross_the_firewall(sandbox: ProcessSandbox) -> None:
    probes = [Probe(name="nan", code="result = float('nan')", expect=float("nan")),
              Probe(name="inf", code="result = [float('-inf')]", expect=[float("-inf")])]
    assert grade_probes({}, probes, sandbox, timeout_s=TIMEOUT).status == "success"


def test_humaneval_reference_solutions_pass_sample(sandbox: ProcessSandbox) -> None:
    tasks = random.Random(2).sample(load_humaneval(), 15)
    failures = {t.task_id: r.reason for t in tasks
                if (r := grade(t, {"solution.py": t.reference}, sandbox, timeout_s=5)).status != "success"}
    assert failures == {}


@pytest.mark.slow
def test_humaneval_all_reference_solutions_pass(sandbox: ProcessSandbox) -> None:
    failures = {t.task_id: r.reason for t in load_humaneval()
                if (r := grade(t, {"solution.py": t.reference}, sandbox, timeout_s=5)).status != "success"}
    assert failures == {}


def test_humaneval_body_only_completion(sandbox: ProcessSandbox) -> None:
    task = load_humaneval()[0]
    body = task.reference[len(task.prompt):]
    assert grade(task, {"solution.py": body}, sandbox, timeout_s=5).status == "success"


@pytest.mark.parametrize(("actual", "expected", "same"), [
    ("1 2  \n3\n\n\n", "1 2\n3", True),
    ("0.30000000000000004\n", "0.3\n", True),
    ("1e9\n", "1000000000.0000001\n", True),
    ("0.31\n", "0.3\n", False),
    ("a b\n", "a  b\n", True),
    ("1\n2\n", "1 2\n", False),
    ("\n1\n", "1\n", False),
])
def test_outputs_match(actual: str, expected: str, same: bool) -> None:
    assert outputs_match(actual, expected) is same


@pytest.mark.parametrize(("actual", "expected", "same"), [
    ([1, [2.0000001]], (1, (2,)), True),
    ({"b": 1, "a": 2}, {"a": 2, "b": 1}, True),
    (True, 1, False),
    (1, True, False),
    ("1", 1, False),
    (None, 0, False),
    ([1], [1, 2], False),
    (2**70, float(2**70), True),
    (10**400, 1.0, False),
])
def test_values_match(actual: object, expected: object, same: bool) -> None:
    assert values_match(actual, expected, 1e-6) is same


SELF_AWARE = '''
import inspect
import sys

import solution as myself


def f(x):
    return [__name__, __spec__.name, __file__.endswith("/solution.py"),
            myself is sys.modules[__name__], "def f(x):" in inspect.getsource(f), x]
'''


@pytest.mark.parametrize("reference", [True, False], ids=["reference", "no-reference"])
def test_the_solution_is_a_module_as_an_import_makes_it(sandbox: ProcessSandbox,
                                                        reference: bool) -> None:
    """The harness loads solution.py without the import system's finders: the module still
    has its name, spec and file, can import itself, and its source can be read — whether
    the reference or the candidate's own run predicts the calls."""
    test = ("def check(candidate):\n"
            "    assert candidate(1) == ['solution', 'solution', True, True, True, 1]\n")
    task = _task(test).model_copy(update={"reference": SELF_AWARE if reference else ""})
    result = grade(task, {"solution.py": SELF_AWARE}, sandbox, timeout_s=2.0)
    assert result.status == "success", result.reason


@pytest.mark.parametrize("reference", [True, False], ids=["reference", "no-reference"])
def test_a_solution_that_fails_on_import_fails_every_test(sandbox: ProcessSandbox,
                                                          reference: bool) -> None:
    test = "def check(candidate):\n    assert candidate(1) == 1\n    assert candidate(2) == 2\n"
    task = _task(test).model_copy(
        update={"reference": "def f(x):\n    return x\n" if reference else ""})
    broken = "def f(x):\n    return x\n\nraise LookupError('no config')\n"
    result = grade(task, {"solution.py": broken}, sandbox, timeout_s=2.0)
    assert result.status == "runtime_error" and result.total == 2
    assert "import failed: LookupError: no config" in (result.reason or "")
