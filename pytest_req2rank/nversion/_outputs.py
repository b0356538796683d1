"""Each version's output per test input of a HumanEval-form task, as plain data on the host.

The inputs are the calls the task's reference made in its recorded run of ``check`` (the
recording grading replays, :func:`execution.recorded_inputs`); a version runs on them in the
sandbox and its answers cross the type firewall (:func:`execution.call_answers`). An input
on which the reference itself raised is left out: a raised exception is never a voted
output, so that input could never be voted correct (:attr:`TaskInputs.reference_raised`
counts them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ..execution import ReferenceCache, call_answers, recorded_inputs, values_match
from ..models import Task
from ..sandbox import Sandbox

TOLERANCE = 1e-6
"""Floats within this (relative or absolute) are the same output."""
OutputKind = Literal["value", "raised", "failed"]


class Output(BaseModel):
    """What one version produced on one input: a plain ``value``, or a failure (``raised``
    an exception, or ``failed``: a timeout, a crash, a value that cannot cross the firewall),
    ``detail`` saying which."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: OutputKind
    value: Any = None
    detail: str = ""

    @property
    def failure(self) -> bool:
        return self.kind != "value"


class TaskInputs(BaseModel):
    """The inputs versions are voted on: positions in the reference's recorded calls, and the
    reference's output on each."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    positions: tuple[int, ...]
    reference: tuple[Output, ...]
    reference_raised: int = 0


def same_output(a: Output, b: Output, tolerance: float = TOLERANCE) -> bool:
    """Both are values and equal: floats within ``tolerance``, tuples equal lists (the
    grading comparison), sets, bytes and complex numbers by equality. A failure equals
    nothing, itself included."""
    if a.failure or b.failure:
        return False
    if values_match(a.value, b.value, tolerance):
        return True
    return (type(a.value) is type(b.value)
            and type(a.value) in (set, frozenset, bytes, complex) and a.value == b.value)


def task_inputs(task: Task, sandbox: Sandbox, *, timeout_s: float,
                cache: ReferenceCache | None = None) -> TaskInputs:
    """The task's voted inputs and the reference's outputs on them."""
    recorded = recorded_inputs(task, sandbox, timeout_s=timeout_s, reference_cache=cache)
    kept = [(position, call) for position, call in enumerate(recorded) if call.returned]
    if not kept:
        raise ValueError(f"task {task.task_id!r}: the reference returned on no recorded input")
    return TaskInputs(positions=tuple(position for position, _ in kept),
                      reference=tuple(Output(kind="value", value=call.expected)
                                      for _, call in kept),
                      reference_raised=len(recorded) - len(kept))


def version_outputs(task: Task, code: str, inputs: TaskInputs, sandbox: Sandbox, *,
                    timeout_s: float, cache: ReferenceCache | None = None) -> tuple[Output, ...]:
    """``code``'s output on each of ``inputs`` (one sandbox execution)."""
    answers = call_answers(task, {"solution.py": code}, sandbox, timeout_s=timeout_s,
                           reference_cache=cache)
    return tuple(Output(kind=answers[p].kind, value=answers[p].value, detail=answers[p].detail)
                 for p in _positions(inputs.positions, len(answers)))


def _positions(positions: Sequence[int], count: int) -> Sequence[int]:
    if positions and positions[-1] >= count:
        raise ValueError("the program was run on fewer inputs than the reference recorded")
    return positions
