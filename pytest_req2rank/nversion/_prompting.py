"""The generation pipeline's prompts, one builder per step. The knowledge base enters as JSON
data; the context memory (the rollback reasons) enters every prompt after a rollback; each
HILE branch sees only its own idea and plan, never its siblings'."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..models import Task
from ._answers import Solution, Thought, Understanding

PROMPT_VERSION = "nv-pipeline-1"
"""Part of every pipeline call's cache key: a changed prompt is never answered from the cache."""
SYSTEM = ("You are an expert Python programmer taking part in N-version programming: "
          "independent, genuinely different programs for one specification. Use only the "
          "Python 3 standard library.")


def _code_format(task: Task) -> str:
    what = "function" if task.form == "function" else "program (stdin to stdout)"
    return (f"Answer with the complete {what}, and any imports or helpers it needs, in one "
            "```python fenced block.")


def _task(task: Task) -> str:
    if task.form == "function":
        return ("Specification (a Python function to complete):\n"
                f"```python\n{task.prompt.rstrip()}\n```")
    return f"Specification (a program reading stdin, writing stdout):\n{task.prompt.strip()}"


def _memory(memory: Sequence[str]) -> str:
    if not memory:
        return ""
    return ("\n\nEarlier attempts were rolled back; avoid these flaws:\n"
            + "\n".join(f"- {entry}" for entry in memory))


def _data(name: str, value: Any) -> str:
    return f"{name} (JSON):\n{json.dumps(value, indent=1, ensure_ascii=False)}"


def understanding(task: Task, families: Sequence[str], memory: Sequence[str]) -> str:
    shape = {"summary": "...", "inputs": "...", "outputs": "...", "edge_cases": ["..."],
             "family": "one of the families"}
    return (f"{_task(task)}\n\nState what the program must do, before any design. "
            f"{_data('Problem families', list(families))}\n\n"
            f"Answer with one JSON object of this shape:\n{json.dumps(shape)}"
            f"{_memory(memory)}")


def thoughts(task: Task, understood: Understanding, knowledge: dict[str, Any], count: int,
             memory: Sequence[str]) -> str:
    shape = {"thoughts": [{"name": "short-slug", "paradigm": "...", "idea": "..."}]}
    return (f"{_task(task)}\n\n{_data('Understanding', understood.model_dump())}\n\n"
            f"{_data('Knowledge of this problem family', knowledge)}\n\n"
            f"Propose {count} algorithmic ideas for this problem, each built on a different "
            "paradigm (draw on the knowledge above), in plain language: no code. Answer with one "
            f"JSON object of this shape, {count} entries:\n{json.dumps(shape)}{_memory(memory)}")


def solutions(task: Task, understood: Understanding, thought: Thought,
              knowledge: dict[str, Any], count: int, memory: Sequence[str]) -> str:
    shape = {"solutions": [{"name": "short-slug", "data_structures": ["..."],
                            "steps": ["step in plain language"]}]}
    return (f"{_task(task)}\n\n{_data('Understanding', understood.model_dump())}\n\n"
            f"{_data('The algorithmic idea to follow', thought.model_dump())}\n\n"
            f"{_data('Data structures known for this family', knowledge['data_structures'])}\n\n"
            f"Write {count} different plans that realise this idea, each with its own data "
            "structures. Steps in plain language only: no code, no function or variable "
            f"assignments. Answer with one JSON object of this shape, {count} entries:\n"
            f"{json.dumps(shape)}{_memory(memory)}")


def implementation(task: Task, thought: Thought, solution: Solution, control_flow: str,
                   memory: Sequence[str]) -> str:
    return (f"{_task(task)}\n\n{_data('The algorithmic idea', thought.model_dump())}\n\n"
            f"{_data('The plan to implement', solution.model_dump())}\n\n"
            f"Implement exactly this plan, structured as: {control_flow}.\n{_code_format(task)}"
            f"{_memory(memory)}")


def question(task: Task, code: str, similarity: float, knowledge: dict[str, Any],
             memory: Sequence[str]) -> str:
    return (f"{_task(task)}\n\nThis implementation is partly similar (similarity "
            f"{similarity:.2f}) to versions already accepted:\n```python\n{code.rstrip()}\n```\n\n"
            f"{_data('Knowledge of this problem family', knowledge)}\n\n"
            "Refine it to be more distinctive: find what makes it similar to common solutions, "
            "and change that part of the approach, keeping it correct.\n"
            f"{_code_format(task)}{_memory(memory)}")


def negate(task: Task, code: str, similarity: float, knowledge: dict[str, Any],
           memory: Sequence[str]) -> str:
    return (f"{_task(task)}\n\nThis approach is already taken (similarity {similarity:.2f} to "
            f"an accepted version):\n```python\n{code.rstrip()}\n```\n\n"
            f"{_data('Knowledge of this problem family', knowledge)}\n\n"
            "Write a completely different solution: a different algorithmic paradigm and "
            f"different data structures, a contrasting approach.\n{_code_format(task)}"
            f"{_memory(memory)}")


def repair(task: Task, code: str, failures: Sequence[str]) -> str:
    return (f"{_task(task)}\n\nThis implementation fails some of the task's tests:\n"
            f"```python\n{code.rstrip()}\n```\n\n"
            f"{_data('Failing tests and errors', list(failures))}"
            "\n\nFix it, keeping its algorithmic approach and data structures.\n"
            f"{_code_format(task)}")


def with_feedback(prompt: str, feedback: str) -> str:
    """``prompt`` revised with the error of its previous answer (a retry)."""
    return f"{prompt}\n\nYour previous answer was rejected: {feedback}. Answer again."
