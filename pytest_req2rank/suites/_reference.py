"""Turning a suite's canonical solution into a complete reference program."""

from __future__ import annotations

import ast


def defines(code: str, name: str) -> bool:
    """True when ``code`` parses and defines ``name`` at module level."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return True
    return False


def complete_function(prompt: str, solution: str, entry_point: str) -> str:
    """HumanEval's canonical solutions are bodies to append to the prompt; some suites ship whole functions."""
    if defines(solution, entry_point):
        return solution
    return prompt + solution
