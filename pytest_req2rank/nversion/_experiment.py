"""An N-version fault-injection experiment on one task, usable without pytest.

Per pattern: inject the pattern's faults into the task's N versions (:mod:`._faults`), run
every resulting version on the task's recorded inputs (:mod:`._outputs`) and grade it
against the task's tests, and vote (:mod:`._voting`): a :class:`TaskOutcome` per pattern,
which :func:`aggregate` turns into the metrics of each pattern over tasks (:mod:`._metrics`).
Everything is deterministic from the seed; a code that several patterns share is run once.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from ..execution import ReferenceCache, SandboxFailed, grade
from ..models import ExecutionResult, Task, TestStatus
from ..sandbox import Sandbox
from ._faults import (
    MAX_MUTANT_TRIES,
    FailureInjector,
    Fault,
    Injection,
    MutantSearch,
    Pattern,
    inject_code_level,
    inject_common_mode,
    is_test_status,
)
from ._metrics import PatternMetrics, TaskOutcome, pattern_metrics
from ._outputs import TOLERANCE, Output, TaskInputs, task_inputs, version_outputs
from ._voting import vote_task

TIMEOUT_S = 3.0
"""The ceiling of one test's time budget (budgets follow the reference's times below it)."""


class VersionResult(BaseModel):
    """One version as a pattern left it: its faults and its grading against the task's tests."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int
    faults: tuple[Fault, ...]
    status: TestStatus
    passed: int
    tests: int

    @property
    def pass_rate(self) -> float:
        return self.passed / self.tests if self.tests else 0.0


class PatternRun(BaseModel):
    """One pattern on one task: the injection, each version's result, and the outcome voted."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pattern: str
    injection: Injection
    versions: tuple[VersionResult, ...]
    outcome: TaskOutcome


class TaskExperiment(BaseModel):
    """Every requested pattern run on one task's N versions."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    versions: int
    inputs: int
    reference_raised: int
    """Recorded inputs left out of the vote because the reference raised on them."""
    failing_before: int
    """Versions that fail a test before any injection."""
    runs: tuple[PatternRun, ...]


class _Runner:
    """Runs and grades codes of one task, once per distinct code."""

    def __init__(self, task: Task, sandbox: Sandbox, timeout_s: float,
                 cache: ReferenceCache | None) -> None:
        self.task, self.sandbox, self.timeout_s, self.cache = task, sandbox, timeout_s, cache
        self.inputs: TaskInputs = task_inputs(task, sandbox, timeout_s=timeout_s, cache=cache)
        self._done: dict[str, tuple[tuple[Output, ...], ExecutionResult]] = {}

    def run(self, code: str) -> tuple[tuple[Output, ...], ExecutionResult]:
        if code not in self._done:
            outputs = version_outputs(self.task, code, self.inputs, self.sandbox,
                                      timeout_s=self.timeout_s, cache=self.cache)
            graded = grade(self.task, {"solution.py": code}, self.sandbox,
                           timeout_s=self.timeout_s, reference_cache=self.cache)
            if graded.status == "sandbox_error":
                raise SandboxFailed(graded.reason or "the sandbox failed")
            self._done[code] = (outputs, graded)
        return self._done[code]


def _verdict(result: ExecutionResult) -> TestStatus:
    """A version's grading as a verdict on its code (:class:`_Runner` raised on the rest)."""
    if not is_test_status(result.status):
        raise SandboxFailed(result.reason or "the sandbox failed")
    return result.status


class TaskBench:
    """What the experiments of one task share: its recorded inputs, each distinct code's
    outputs and grading, and each version's mutant. Handing the same bench to several
    :func:`run_experiment` calls (one pattern each) runs nothing twice and changes no result."""

    def __init__(self, task: Task, sandbox: Sandbox, *, seed: int, timeout_s: float = TIMEOUT_S,
                 cache: ReferenceCache | None = None,
                 max_mutant_tries: int = MAX_MUTANT_TRIES) -> None:
        self.task, self.seed, self.timeout_s = task, seed, timeout_s
        self.runner = _Runner(task, sandbox, timeout_s, cache)
        self.search = MutantSearch(task, sandbox, seed=seed, timeout_s=timeout_s, cache=cache,
                                   max_tries=max_mutant_tries)


def run_experiment(task: Task, versions: Sequence[str], sandbox: Sandbox, *, seed: int,
                   patterns: Sequence[Pattern], common_mode: Sequence[FailureInjector] = (),
                   timeout_s: float = TIMEOUT_S, tolerance: float = TOLERANCE,
                   cache: ReferenceCache | None = None,
                   max_mutant_tries: int = MAX_MUTANT_TRIES,
                   bench: TaskBench | None = None) -> TaskExperiment:
    """Run ``patterns`` on ``task``'s ``versions`` (complete programs defining the entry
    point). ``common_mode``: the failures Pat-AL patterns draw from; ``bench``: what earlier
    calls on the same task, seed and timeout computed (see :class:`TaskBench`). Raises
    ``Ungradable`` when the reference's run cannot give the inputs, ``SandboxFailed`` when
    the sandbox fails."""
    if not versions:
        raise ValueError("an experiment needs at least one version")
    codes = list(versions)
    if bench is None:
        bench = TaskBench(task, sandbox, seed=seed, timeout_s=timeout_s, cache=cache,
                          max_mutant_tries=max_mutant_tries)
    elif (bench.task is not task and bench.task != task) or bench.seed != seed \
            or bench.timeout_s != timeout_s:
        raise ValueError("the bench was built for another task, seed or timeout")
    runner, search = bench.runner, bench.search
    failing_before = sum(runner.run(code)[1].status != "success" for code in codes)
    runs = []
    for pattern in patterns:
        injection = (inject_code_level(pattern, codes, search) if pattern.family == "CL"
                     else inject_common_mode(pattern, codes, common_mode, seed=seed,
                                             task_id=task.task_id))
        results = [runner.run(code) for code in injection.codes]
        graded = tuple(
            VersionResult(version=index, status=_verdict(result), passed=result.passed,
                          tests=result.total,
                          faults=tuple(f for f in injection.faults if f.version == index))
            for index, (_, result) in enumerate(results))
        vote = vote_task(task.task_id, [outputs for outputs, _ in results],
                         runner.inputs.reference, tolerance)
        outcome = TaskOutcome(vote=vote, pass_rates=tuple(v.pass_rate for v in graded),
                              failing=sum(v.status != "success" for v in graded),
                              failing_before=failing_before)
        runs.append(PatternRun(pattern=pattern.name, injection=injection, versions=graded,
                               outcome=outcome))
    return TaskExperiment(task_id=task.task_id, versions=len(codes),
                          inputs=len(runner.inputs.reference),
                          reference_raised=runner.inputs.reference_raised,
                          failing_before=failing_before, runs=tuple(runs))


def aggregate(experiments: Sequence[TaskExperiment]) -> tuple[PatternMetrics, ...]:
    """Each pattern's metrics over the tasks that ran it, in the order patterns first ran."""
    by_pattern: dict[str, list[TaskOutcome]] = {}
    for experiment in experiments:
        for run in experiment.runs:
            by_pattern.setdefault(run.pattern, []).append(run.outcome)
    return tuple(pattern_metrics(name, outcomes) for name, outcomes in by_pattern.items())
