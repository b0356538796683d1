"""JSONL suites in HumanEval form (``check(candidate)`` tests) or I/O form (stdin → stdout cases)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..models import IOCase, Task
from ._errors import SuiteError
from ._ids import dataset_name, item_id
from ._reference import complete_function

FUNCTION_FIELDS = ("task_id", "prompt", "entry_point", "canonical_solution", "test")
IO_FIELDS = ("task_id", "prompt", "canonical_solution", "tests")


def load_jsonl(path: Path, *, dataset: str | None = None) -> list[Task]:
    """Load and validate every line; the first problem raises :class:`SuiteError` with file:line."""
    if not path.is_file():
        raise SuiteError(f"{path}: suite file not found; check the path given to --r2r-suite=jsonl:PATH")
    name = dataset_name(dataset or path.stem)
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            task = _parse_line(line, where, name)
            if task.item_id in seen:
                raise SuiteError(
                    f"{where}: task_id {task.task_id!r} duplicates line {seen[task.item_id]}; "
                    "task ids must be unique"
                )
            seen[task.item_id] = lineno
            tasks.append(task)
    if not tasks:
        raise SuiteError(f"{path}: the suite has no tasks; add one JSON object per line")
    return tasks


def _parse_line(line: str, where: str, dataset: str) -> Task:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise SuiteError(f"{where}: invalid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(record, dict):
        raise SuiteError(f"{where}: expected a JSON object, got {type(record).__name__}")
    if "tests" in record:
        return _io_task(record, where, dataset)
    if "test" in record or "entry_point" in record:
        return _function_task(record, where, dataset)
    raise SuiteError(
        f"{where}: cannot tell the form; HumanEval form needs {', '.join(FUNCTION_FIELDS)}; "
        f"I/O form needs {', '.join(IO_FIELDS)}"
    )


def _require(record: dict[str, Any], fields: tuple[str, ...], where: str, form: str) -> None:
    for field in fields:
        if field not in record:
            raise SuiteError(
                f"{where}: missing field {field!r} ({form} form needs {', '.join(fields)})"
            )
        if field != "tests" and not isinstance(record[field], str):
            raise SuiteError(
                f"{where}: field {field!r} must be a string, got {type(record[field]).__name__}"
            )
    if not record["task_id"].strip():
        raise SuiteError(f"{where}: field 'task_id' must not be empty")


def _function_task(record: dict[str, Any], where: str, dataset: str) -> Task:
    _require(record, FUNCTION_FIELDS, where, "HumanEval")
    if "def check" not in record["test"]:
        raise SuiteError(f"{where}: field 'test' must define check(candidate)")
    return Task(
        item_id=item_id(dataset, record["task_id"]),
        dataset=dataset,
        task_id=record["task_id"],
        form="function",
        prompt=record["prompt"],
        reference=complete_function(
            record["prompt"], record["canonical_solution"], record["entry_point"]
        ),
        entry_point=record["entry_point"],
        test=record["test"],
        source=where,
    )


def _io_task(record: dict[str, Any], where: str, dataset: str) -> Task:
    _require(record, IO_FIELDS, where, "I/O")
    tests = record["tests"]
    if not isinstance(tests, list) or not tests:
        raise SuiteError(f"{where}: field 'tests' must be a non-empty list of {{input, output}}")
    cases = []
    for index, case in enumerate(tests):
        if not isinstance(case, dict):
            raise SuiteError(f"{where}: tests[{index}] must be an object with input and output")
        for key in ("input", "output"):
            if key not in case:
                raise SuiteError(f"{where}: missing field 'tests[{index}].{key}'")
            if not isinstance(case[key], str):
                raise SuiteError(f"{where}: field 'tests[{index}].{key}' must be a string")
        cases.append(IOCase(input=case["input"], output=case["output"]))
    return Task(
        item_id=item_id(dataset, record["task_id"]),
        dataset=dataset,
        task_id=record["task_id"],
        form="io",
        prompt=record["prompt"],
        reference=record["canonical_solution"],
        cases=tuple(cases),
        source=where,
    )
