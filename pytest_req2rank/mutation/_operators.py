"""Mutation operators and their registry.

An operator looks at one AST node and yields replacement nodes, each with a
short description. Replacements must be fresh nodes (build them from copies).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator

Replacement = tuple[ast.AST, str]
Operator = Callable[[ast.AST], Iterator[Replacement]]

OPERATORS: dict[str, Operator] = {}


def register_operator(kind: str) -> Callable[[Operator], Operator]:
    """Register ``func`` as the operator for mutants of ``kind`` (replacing any earlier one)."""

    def decorate(func: Operator) -> Operator:
        OPERATORS[kind] = func
        return func

    return decorate


def _symbol(op: ast.AST) -> str:
    return {
        ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
        ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&",
        ast.BitOr: "|", ast.BitXor: "^", ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<",
        ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Is: "is", ast.IsNot: "is not",
        ast.In: "in", ast.NotIn: "not in", ast.And: "and", ast.Or: "or",
    }[type(op)]


_ARITHMETIC: dict[type, tuple[type, ...]] = {
    ast.Add: (ast.Sub,), ast.Sub: (ast.Add,), ast.Mult: (ast.Div,), ast.Div: (ast.Mult,),
    ast.FloorDiv: (ast.Div,), ast.Mod: (ast.FloorDiv,), ast.Pow: (ast.Mult,),
    ast.LShift: (ast.RShift,), ast.RShift: (ast.LShift,), ast.BitAnd: (ast.BitOr,),
    ast.BitOr: (ast.BitAnd,), ast.BitXor: (ast.BitAnd,),
}
_FLIP: dict[type, type] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE,
    ast.LtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In,
}
_SWAP: dict[type, type] = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}
_BOUNDARY: dict[type, type] = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}


@register_operator("arithmetic")
def arithmetic(node: ast.AST) -> Iterator[Replacement]:
    """Swap an arithmetic or bitwise operator (``+``→``-``, ``*``→``/``, …), also in ``x += …``."""
    if isinstance(node, (ast.BinOp, ast.AugAssign)):
        for new in _ARITHMETIC.get(type(node.op), ()):
            mutated = copy.deepcopy(node)
            mutated.op = new()
            yield mutated, f"{_symbol(node.op)} → {_symbol(mutated.op)}"


def _compare_variants(node: ast.AST, table: dict[type, type]) -> Iterator[Replacement]:
    if not isinstance(node, ast.Compare):
        return
    for i, op in enumerate(node.ops):
        if type(op) in table:
            mutated = copy.deepcopy(node)
            mutated.ops[i] = table[type(op)]()
            yield mutated, f"{_symbol(op)} → {_symbol(mutated.ops[i])}"


@register_operator("comparison-flip")
def comparison_flip(node: ast.AST) -> Iterator[Replacement]:
    """Negate a comparison operator (``==``→``!=``, ``<``→``>=``, ``in``→``not in``, …)."""
    yield from _compare_variants(node, _FLIP)


@register_operator("comparison-swap")
def comparison_swap(node: ast.AST) -> Iterator[Replacement]:
    """Reverse an ordering comparison (``<``→``>``, ``<=``→``>=``)."""
    yield from _compare_variants(node, _SWAP)


@register_operator("boundary")
def boundary(node: ast.AST) -> Iterator[Replacement]:
    """Move a boundary (``<``↔``<=``, ``>``↔``>=``)."""
    yield from _compare_variants(node, _BOUNDARY)


@register_operator("boolean")
def boolean(node: ast.AST) -> Iterator[Replacement]:
    """Swap ``and`` and ``or``."""
    if isinstance(node, ast.BoolOp):
        mutated = copy.deepcopy(node)
        mutated.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield mutated, f"{_symbol(node.op)} → {_symbol(mutated.op)}"


@register_operator("negate-condition")
def negate_condition(node: ast.AST) -> Iterator[Replacement]:
    """Negate the condition of an ``if``, ``while``, conditional expression or comprehension filter."""
    if isinstance(node, (ast.If, ast.While, ast.IfExp)):
        tests = [node.test]
    elif isinstance(node, ast.comprehension):
        tests = node.ifs
    else:
        return
    for i, test in enumerate(tests):
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            continue
        mutated = copy.deepcopy(node)
        negated = ast.UnaryOp(op=ast.Not(), operand=copy.deepcopy(test))
        if isinstance(mutated, ast.comprehension):
            mutated.ifs[i] = negated
        else:
            mutated.test = negated
        yield mutated, f"condition `{_short(test)}` negated"


@register_operator("remove-not")
def remove_not(node: ast.AST) -> Iterator[Replacement]:
    """Drop a ``not``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield copy.deepcopy(node.operand), f"`not` removed from `{_short(node)}`"


@register_operator("constant")
def constant(node: ast.AST) -> Iterator[Replacement]:
    """Change an integer constant by one in each direction."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        for delta in (1, -1):
            yield ast.Constant(value=node.value + delta), f"{node.value} → {node.value + delta}"


_KEEP = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom,
         ast.Pass, ast.Global, ast.Nonlocal)


@register_operator("statement-drop")
def statement_drop(node: ast.AST) -> Iterator[Replacement]:
    """Replace a statement by ``pass`` (definitions, imports and docstrings are kept)."""
    if isinstance(node, ast.stmt) and not isinstance(node, _KEEP) and not _is_docstring(node):
        yield ast.Pass(), f"`{_short(node)}` dropped"


@register_operator("return-none")
def return_none(node: ast.AST) -> Iterator[Replacement]:
    """Make a ``return value`` return ``None``."""
    if isinstance(node, ast.Return) and node.value is not None and not (
            isinstance(node.value, ast.Constant) and node.value.value is None):
        yield ast.Return(value=ast.Constant(value=None)), f"`{_short(node)}` → `return None`"


def _is_docstring(node: ast.stmt) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


def _short(node: ast.AST, width: int = 50) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= width else text[: width - 1] + "…"
