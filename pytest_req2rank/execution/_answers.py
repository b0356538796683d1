"""What a program answers on a HumanEval-form task's recorded inputs, as plain data on the host.

N-version voting compares programs input by input, so it needs each program's output per
input rather than a verdict per test. The inputs are the calls the reference made when its
run of ``check`` was recorded (:mod:`._recording`, the same recording grading replays); the
program runs on them in one ``calls`` execution of the grading harness (:mod:`._replay`
step 3: no test code, no expected value in that process), and every answer crosses the
type firewall as in grading. Here no call ends its test: a call that raises is that call's
answer, and the next call follows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..models import Task
from ..sandbox import Limits, Sandbox
from ._budget import FLOOR_S, MULTIPLE, BudgetRule
from ._compare import NotPlain, decode_plain
from ._decompose import decompose
from ._grading import REFERENCE_CACHE, program_files
from ._harness import run_harness, text
from ._recording import Recording, ReferenceCache
from ._replay import MODULE, OUTPUT_FACTOR, Ungradable, reference_recording

AnswerKind = Literal["value", "raised", "failed"]


@dataclass(frozen=True)
class CallAnswer:
    """One recorded input (a call of test ``test``) and the program's answer to it.

    ``kind``: ``value`` (it returned ``value``, plain data), ``raised`` (``detail``: the
    exception's class and message), or ``failed`` (no answer: ``detail`` says why — a
    timeout, a value that cannot cross the firewall, a crash, an earlier timeout)."""

    test: int
    args: list[Any]
    kwargs: dict[str, Any]
    kind: AnswerKind
    value: Any = None
    detail: str = ""


@dataclass(frozen=True)
class RecordedInput:
    """One call of the reference's recorded run: its test, arguments, and what it answered
    (``returned`` False when the reference's call raised)."""

    test: int
    args: list[Any]
    kwargs: dict[str, Any]
    returned: bool
    expected: Any


def recorded_inputs(task: Task, sandbox: Sandbox, *, timeout_s: float,
                    reference_cache: ReferenceCache | None = None) -> list[RecordedInput]:
    """The reference's recorded calls of ``task`` (recorded now when not cached), in test
    order; raises :class:`Ungradable` when the reference's run cannot predict them."""
    recording = _recording(task, sandbox, BudgetRule(timeout_s),
                           reference_cache or REFERENCE_CACHE)
    return [RecordedInput(index, call.args, call.kwargs, call.returned, call.expected)
            for index, test in enumerate(recording.tests) for call in test.calls]


def call_answers(task: Task, files: dict[str, str], sandbox: Sandbox, *, timeout_s: float,
                 multiple: float = MULTIPLE, floor_s: float = FLOOR_S,
                 reference_cache: ReferenceCache | None = None) -> list[CallAnswer]:
    """The program's answer to each of :func:`recorded_inputs` (same order), budgets as in
    :func:`grade`; raises :class:`Ungradable`, and ``SandboxFailed`` when the sandbox fails
    twice."""
    rule = BudgetRule(timeout_s, multiple, floor_s)
    recording = _recording(task, sandbox, rule, reference_cache or REFERENCE_CACHE)
    files = program_files(task, files)
    tests = recording.tests
    largest = max((test.size for test in tests), default=0)
    limits = Limits(output_bytes=max(Limits().output_bytes,
                                     OUTPUT_FACTOR * largest * (len(tests) + 1)))
    budgets = rule.budgets([test.seconds for test in tests])
    spec = {"mode": "calls", "module": MODULE, "entry_point": task.entry_point or "",
            "tests": [{"i": index, "calls": [(c.args, c.kwargs) for c in test.calls],
                       "budget": budget, "stop": False}
                      for index, (test, budget) in enumerate(zip(tests, budgets.tests))]}
    run = run_harness(sandbox, spec, files=files, tests=len(tests), budgets=budgets,
                      limits=limits)
    answers: list[CallAnswer] = []
    for index, test in enumerate(tests):
        record = run.records[index]
        found = (_answers(record) if record is not None
                 else ({}, f"{run.missing()[0]}: {run.missing()[1]}"))
        given, why = found
        for position, call in enumerate(test.calls):
            kind, value, detail = given.get(position, ("failed", None, why))
            answers.append(CallAnswer(index, call.args, call.kwargs, kind, value, detail))
    return answers


def _recording(task: Task, sandbox: Sandbox, rule: BudgetRule,
               cache: ReferenceCache) -> Recording:
    if task.form != "function":
        raise ValueError(f"task {task.task_id!r} is not in HumanEval form")
    check = decompose(task.test or "", task.entry_point or "")
    found = reference_recording(task, check, sandbox, rule, cache)
    if not isinstance(found, Recording):
        raise Ungradable(f"the reference's run cannot predict the inputs: {found.why}")
    return found


def _answers(record: dict[str, Any]) -> tuple[dict[int, tuple[AnswerKind, Any, str]], str]:
    """A calls record's answers by call position, and why the calls after them have none."""
    status, detail = str(record.get("status")), text(record.get("detail"))
    why = f"{status}: {detail}" if detail else status
    outputs, raised = record.get("o", []), record.get("x", [])
    if type(outputs) is not list or type(raised) is not list:
        return {}, "malformed record"
    errors: dict[int, str] = {}
    for entry in raised:
        try:
            position, names, message = entry
            errors[int(position)] = f"{names[0]}: {message}" if message else str(names[0])
        except (TypeError, ValueError, IndexError):
            return {}, "malformed record"
    given: dict[int, tuple[AnswerKind, Any, str]] = {}
    for position, output in enumerate(outputs):
        if position in errors:
            given[position] = ("raised", None, errors[position][:2000])
            continue
        try:
            given[position] = ("value", decode_plain(output), "")
        except NotPlain as exc:
            given[position] = ("failed", None, f"not plain data: {exc}")
    return given, why
