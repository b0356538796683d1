"""JSONL suites in HumanEval form (``check(candidate)`` tests) or I/O form (stdin → stdout cases)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..jsonl import JsonlError, Line, read_jsonl
from ..models import IOCase, ItemId, Task, dataset_name
from ._errors import SuiteError
from ._humaneval import complete_function

FUNCTION_FIELDS = ("task_id", "prompt", "entry_point", "canonical_solution", "test")
IO_FIELDS = ("task_id", "prompt", "canonical_solution", "tests")


def load_jsonl(path: Path, *, dataset: str | None = None) -> list[Task]:
    """Load and validate every line; the first problem raises :class:`SuiteError` with
    ``FILE:LINE:COLUMN``. Lines are limited to :data:`~pytest_req2rank.jsonl.MAX_LINE_BYTES`."""
    name = dataset_name(dataset or path.stem)
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    try:
        for line, record in read_jsonl(path):
            task = _parse_line(record, line, name)
            if task.item_id in seen:
                raise SuiteError(
                    f"{line.where('task_id')}: task_id {task.task_id!r} duplicates line "
                    f"{seen[task.item_id]}; task ids must be unique"
                )
            seen[task.item_id] = line.number
            tasks.append(task)
    except JsonlError as exc:
        if exc.missing:
            raise SuiteError(
                f"{path}: suite file not found; check the path given to --r2r-suite=jsonl:PATH"
            ) from None
        raise SuiteError(str(exc)) from None
    if not tasks:
        raise SuiteError(f"{path}: the suite has no tasks; add one JSON object per line")
    return tasks


def _parse_line(record: Any, line: Line, dataset: str) -> Task:
    if not isinstance(record, dict):
        raise SuiteError(f"{line.where()}: expected a JSON object, got {type(record).__name__}")
    if "tests" in record:
        return _io_task(record, line, dataset)
    if "test" in record or "entry_point" in record:
        return _function_task(record, line, dataset)
    raise SuiteError(
        f"{line.where()}: cannot tell the form; HumanEval form needs {', '.join(FUNCTION_FIELDS)}; "
        f"I/O form needs {', '.join(IO_FIELDS)}"
    )


def _require(record: dict[str, Any], fields: tuple[str, ...], line: Line, form: str) -> None:
    for field in fields:
        if field not in record:
            raise SuiteError(
                f"{line.where()}: missing field {field!r} ({form} form needs {', '.join(fields)})"
            )
        if field != "tests" and not isinstance(record[field], str):
            raise SuiteError(
                f"{line.where(field)}: field {field!r} must be a string, "
                f"got {type(record[field]).__name__}"
            )
    if not record["task_id"].strip():
        raise SuiteError(f"{line.where('task_id')}: field 'task_id' must not be empty")


def _function_task(record: dict[str, Any], line: Line, dataset: str) -> Task:
    _require(record, FUNCTION_FIELDS, line, "HumanEval")
    if "def check" not in record["test"]:
        raise SuiteError(f"{line.where('test')}: field 'test' must define check(candidate)")
    return Task(
        item_id=str(ItemId.of_task(dataset, record["task_id"])),
        dataset=dataset,
        task_id=record["task_id"],
        form="function",
        prompt=record["prompt"],
        reference=complete_function(
            record["prompt"], record["canonical_solution"], record["entry_point"]
        ),
        entry_point=record["entry_point"],
        test=record["test"],
        source=f"{line.path}:{line.number}",
    )


def _io_task(record: dict[str, Any], line: Line, dataset: str) -> Task:
    _require(record, IO_FIELDS, line, "I/O")
    tests = record["tests"]
    if not isinstance(tests, list) or not tests:
        raise SuiteError(
            f"{line.where('tests')}: field 'tests' must be a non-empty list of {{input, output}}"
        )
    cases = []
    for index, case in enumerate(tests):
        if not isinstance(case, dict):
            raise SuiteError(
                f"{line.where('tests', index)}: tests[{index}] must be an object with input and output"
            )
        for key in ("input", "output"):
            if key not in case:
                raise SuiteError(f"{line.where('tests', index)}: missing field 'tests[{index}].{key}'")
            if not isinstance(case[key], str):
                raise SuiteError(
                    f"{line.where('tests', index, key)}: field 'tests[{index}].{key}' must be a string"
                )
        cases.append(IOCase(input=case["input"], output=case["output"]))
    return Task(
        item_id=str(ItemId.of_task(dataset, record["task_id"])),
        dataset=dataset,
        task_id=record["task_id"],
        form="io",
        prompt=record["prompt"],
        reference=record["canonical_solution"],
        cases=tuple(cases),
        source=f"{line.path}:{line.number}",
    )
