"""Scripted answers of a model in the generation pipeline, for the fake provider: one rule
per prompt kind (matched on the prompt's own words), the task ``add3``."""

from __future__ import annotations

import json
from typing import Any

from pytest_req2rank.models import Task

UNDERSTAND = "State what the program must do"
THOUGHTS = r"Propose \d+ algorithmic ideas"
PLANS = "different plans that realise this idea"
IMPLEMENT = "Implement exactly this plan"
QUESTION = "Refine it to be more distinctive"
NEGATE = "Write a completely different solution"
REPAIR = "fails some of the task's tests"

ADD3 = Task(item_id="nversion/add3", dataset="demo", task_id="add3", form="function",
            prompt='def add3(a, b):\n    """Return a + b + 3."""\n', entry_point="add3",
            reference="def add3(a, b):\n    return a + b + 3\n",
            test="def check(candidate):\n    assert candidate(1, 2) == 6\n"
                 "    assert candidate(0, 0) == 3\n    assert candidate(-4, 1) == 0\n")
RIGHT = ["def add3(a, b):\n    return a + b + 3\n",
         "def add3(a, b):\n    return sum((a, b, 3))\n",
         "def add3(a, b):\n    total = 3\n    for x in (a, b):\n        total += x\n"
         "    return total\n",
         "import operator\n\ndef add3(a, b):\n    return operator.add(operator.add(a, b), 3)\n",
         "def add3(a, b):\n    return (lambda *xs: sum(xs))(a, b, 3)\n"]
WRONG = "def add3(a, b):\n    return a - b\n"
UNDERSTOOD = {"summary": "add two numbers and three", "inputs": "two integers",
              "outputs": "an integer", "edge_cases": ["negative numbers"],
              "family": "arithmetic"}


async def no_sleep(seconds: float) -> None:
    """The provider's back-off sleep, skipped: scripted errors retry at once."""


def fenced(code: str) -> dict[str, Any]:
    return {"text": f"```python\n{code}```"}


def as_json(value: Any) -> dict[str, Any]:
    return {"text": json.dumps(value)}


def thoughts(count: int) -> dict[str, Any]:
    paradigms = ["closed form", "reduction", "iteration", "operator module", "recursion"]
    return as_json({"thoughts": [{"name": f"idea-{k}", "paradigm": paradigms[k],
                                  "idea": f"{paradigms[k]}: " + "xyzw"[k % 4] * (5 + 7 * k)}
                                 for k in range(count)]})


def plans(count: int = 1) -> dict[str, Any]:
    return as_json({"solutions": [{"name": f"plan-{k}", "data_structures": ["scalars"],
                                   "steps": ["Add the two inputs", "Add three to the sum"]}
                                  for k in range(count)]})


def script(implementations: list[dict[str, Any]], *, understanding: list[dict[str, Any]] | None
           = None, thought_answers: list[dict[str, Any]] | None = None,
           plan_answers: list[dict[str, Any]] | None = None,
           regenerations: list[dict[str, Any]] | None = None,
           repairs: list[dict[str, Any]] | None = None, count: int = 3) -> list[dict[str, Any]]:
    """The rules of a scripted model (each rule's answers in order, the last repeating)."""
    return [
        {"match": REPAIR, "responses": repairs or [fenced(RIGHT[0])]},
        {"match": QUESTION, "responses": regenerations or [fenced(RIGHT[3])]},
        {"match": NEGATE, "responses": regenerations or [fenced(RIGHT[4])]},
        {"match": UNDERSTAND, "responses": understanding or [as_json(UNDERSTOOD)]},
        {"match": THOUGHTS, "responses": thought_answers or [thoughts(count)]},
        {"match": PLANS, "responses": plan_answers or [plans()]},
        {"match": IMPLEMENT, "responses": implementations},
    ]
