"""Turning a suite's canonical solution into a complete reference program."""

from __future__ import annotations

from ..execution import defines


def complete_function(prompt: str, solution: str, entry_point: str) -> str:
    """HumanEval's canonical solutions are bodies to append to the prompt; some suites ship whole functions."""
    if defines(solution, entry_point):
        return solution
    return prompt + solution
