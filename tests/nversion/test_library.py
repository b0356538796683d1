"""The offline library: its size, its tasks' fit to their definitions (HumanEval's, or the
library's own for requirement tasks), and every version correct (graded by the project's own
grading in the sandbox)."""

from __future__ import annotations

import ast
import time

import pytest

from pytest_req2rank.generation import load_templates
from pytest_req2rank.models import Task
from pytest_req2rank.nversion import FAMILIES, requirement_tasks
from pytest_req2rank.nversion._library import LIBRARY_VERSION, REQUIREMENT_PREFIX, LibraryTask
from pytest_req2rank.sandbox import ProcessSandbox

from .conftest import grade_code


def test_library_size_and_version(library: tuple[LibraryTask, ...]) -> None:
    assert len(library) >= 30
    assert all(len(t.implementations) >= 3 for t in library)
    assert sum(len(t.implementations) >= 5 for t in library) >= 10
    assert {t.version for t in library} == {LIBRARY_VERSION}
    assert {t.family for t in library} <= set(FAMILIES)
    assert len({t.task_id for t in library}) == len(library)


def test_models_are_frozen(library: tuple[LibraryTask, ...]) -> None:
    with pytest.raises(Exception, match="frozen"):
        library[0].family = "sorting"  # type: ignore[misc]
    with pytest.raises(Exception, match="frozen"):
        library[0].implementations[0].code = ""  # type: ignore[misc]


def _signature(code: str, name: str) -> list[str]:
    tree = ast.parse(code)
    (func,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    return [a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)]


def test_requirement_tasks(library: tuple[LibraryTask, ...]) -> None:
    """At least six tasks derived from the dynamic suite's requirement templates, each
    carrying its definition; three or more of them with five versions."""
    own = [entry for entry in library if entry.is_requirement]
    assert len(own) >= 6
    assert sum(len(entry.implementations) >= 5 for entry in own) >= 3
    templates = {template.id for template in load_templates()}
    for entry in own:
        assert entry.task_id == REQUIREMENT_PREFIX + str(entry.template)
        assert entry.template in templates, entry.task_id
    tasks = requirement_tasks(library)
    assert [t.task_id for t in tasks] == [e.task_id for e in own]
    for task, entry in zip(tasks, own, strict=True):
        assert task.form == "function" and task.entry_point == entry.entry_point
        assert task.prompt == entry.prompt and task.test == entry.test
        assert task.item_id == "requirement/" + entry.task_id.replace("/", "_")
    assert all(entry.prompt is None and entry.test is None for entry in library
               if not entry.is_requirement)


def test_every_version_has_its_task_signature(library: tuple[LibraryTask, ...],
                                              task_definitions: dict[str, Task]) -> None:
    for entry in library:
        task = task_definitions[entry.task_id]
        assert entry.entry_point == task.entry_point, entry.task_id
        wanted = _signature(task.prompt, entry.entry_point)
        for impl in entry.implementations:
            assert _signature(impl.code, entry.entry_point) == wanted, (entry.task_id, impl.name)


def _graded(entries: list[LibraryTask], task_definitions: dict[str, Task],
            sandbox: ProcessSandbox) -> list[str]:
    failures = []
    for entry in entries:
        for impl in entry.implementations:
            status, reason = grade_code(task_definitions[entry.task_id], impl.code, sandbox)
            if status != "success":
                failures.append(f"{entry.task_id} {impl.name}: {status} ({reason})")
    return failures


def test_every_version_of_every_task_passes_its_tests(
        library: tuple[LibraryTask, ...], task_definitions: dict[str, Task],
        sandbox: ProcessSandbox) -> None:
    """All versions, one shared fork-server sandbox: about 2 s for 175 versions here, so the
    full check stays in the fast suite."""
    start = time.perf_counter()
    assert _graded(list(library), task_definitions, sandbox) == []
    count = sum(len(t.implementations) for t in library)
    print(f"\n{count} versions graded in {time.perf_counter() - start:.1f} s")


def test_a_wrong_version_fails_the_same_grading(humaneval_tasks: dict[str, Task],
                                                sandbox: ProcessSandbox) -> None:
    """The grading used above can fail: HumanEval/12 with ties broken the wrong way."""
    wrong = ("def longest(strings):\n"
             "    return max(reversed(strings), key=len) if strings else None\n")
    assert grade_code(humaneval_tasks["HumanEval/12"], wrong, sandbox)[0] != "success"


def test_every_requirement_reference_passes_and_a_wrong_version_fails(
        task_definitions: dict[str, Task], library: tuple[LibraryTask, ...],
        sandbox: ProcessSandbox) -> None:
    """The requirement tasks' own references pass their tests, and those tests catch a
    classic mistake: touching bookings left as a zero-length gap, min_gap ignored."""
    for task in requirement_tasks(library):
        assert grade_code(task, task.reference, sandbox)[0] == "success", task.task_id
    wrong = ("def free_slots(bookings, day_start, day_end, min_gap=15):\n"
             "    gaps, cursor = [], day_start\n"
             "    for start, end in sorted(bookings):\n"
             "        if start >= cursor:\n"
             "            gaps.append((cursor, start))\n"
             "        cursor = max(cursor, end)\n"
             "    return gaps + [(cursor, day_end)]\n")
    task = task_definitions["Requirement/booking-intervals"]
    assert grade_code(task, wrong, sandbox)[0] != "success"
