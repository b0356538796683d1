"""Prompts for the target model, one per task form."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..models import Task
from ..providers import Message

SYSTEM = (
    "You are an expert Python programmer. You write correct, complete, self-contained Python 3 "
    "code using only the standard library."
)

ANSWER_FORMAT = (
    "Answer with the code only, either in one ```python fenced block, or as JSON "
    '{"files": [{"path": "solution.py", "content": "..."}]}.'
)


def function_prompt(task: Task) -> str:
    return (
        "Complete the following Python function. Return the complete function, including its "
        "signature and any imports or helpers it needs.\n\n"
        f"```python\n{task.prompt.rstrip()}\n```\n\n{ANSWER_FORMAT}"
    )


def io_prompt(task: Task) -> str:
    return (
        "Write a complete Python 3 program that reads its input from standard input and writes "
        "its answer to standard output.\n\n"
        f"{task.prompt.strip()}\n\n{ANSWER_FORMAT}"
    )


def build_messages(task: Task) -> tuple[Message, ...]:
    """The conversation sent to the target model for ``task``."""
    user = function_prompt(task) if task.form == "function" else io_prompt(task)
    return (Message(role="system", content=SYSTEM), Message(role="user", content=user))


REQUIREMENT_FORMAT = (
    'Answer with JSON only: {"files": [{"path": "<file name>", "content": "<file content>"}, ...]} '
    "holding every file the deliverables name, with the exact file names, functions, classes and "
    "signatures the interface gives. Use only the Python 3 standard library."
)


def requirement_prompt(brief: Mapping[str, Any]) -> str:
    """The requirement as the target model sees it: never tests, reference or guidance."""
    lines = [f"# {brief['title']}", "", str(brief["description"]).strip(), "", "## Functional requirements"]
    for requirement in brief["requirements"]:
        lines.append(f"- {requirement['id']} ({requirement['priority']}): {requirement['text']}")
        if requirement.get("acceptance"):
            lines.append(f"  Acceptance: {requirement['acceptance']}")
    lines += ["", "## Interface", str(brief["interface"]["text"]).strip()]
    if brief.get("constraints"):
        lines += ["", "## Constraints", *(f"- {c}" for c in brief["constraints"])]
    if brief.get("deliverables"):
        lines += ["", "## Deliverables", *(f"- {d}" for d in brief["deliverables"])]
    lines += ["", REQUIREMENT_FORMAT]
    return "\n".join(lines)


def requirement_messages(brief: Mapping[str, Any]) -> tuple[Message, ...]:
    """The conversation sent to the target model for a requirement."""
    return (Message(role="system", content=SYSTEM), Message(role="user", content=requirement_prompt(brief)))
