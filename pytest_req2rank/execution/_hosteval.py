"""Evaluating a decomposed assert on the host, over plain data only.

The expression is the test's own assert; candidate calls are replaced by what
the candidate returned (decoded by :func:`._compare.decode_plain`, so only exact
builtin types), other operands by literals or by the values the reference run
recorded. Only whitelisted operators and pure functions run, with guards
against values that would take the host down (huge powers, huge repetitions).
``==`` compares floats within a tolerance; everything else is Python's own.
"""

from __future__ import annotations

import ast
import builtins
import math
import operator
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import Req2RankError
from ._compare import numbers_close
from ._decompose import SAFE_FUNCTIONS, SAFE_MATH, HostAssert

EQ_TOLERANCE = 1e-9
MAX_EXPONENT = 4096
MAX_ITEMS = 1_000_000

_FUNCTIONS: dict[str, Callable[..., Any]] = {
    name: getattr(builtins, name) for name in SAFE_FUNCTIONS}
_MATH: dict[str, Callable[..., Any]] = {name: getattr(math, name) for name in SAFE_MATH}


_NUMBERS = {int, float, bool}


class HostEvalError(Req2RankError):
    """Evaluating the assert raised: the test's verdict is a runtime error, as it would be."""


def loose_equal(a: Any, b: Any, tolerance: float = EQ_TOLERANCE) -> bool:
    """Python's ``==`` on plain data, except that floats compare within ``tolerance``."""
    if (type(a) is float or type(b) is float) and {type(a), type(b)} <= _NUMBERS:
        try:
            x, y = float(a), float(b)
        except OverflowError:
            return False
        return not (math.isnan(x) or math.isnan(y)) and numbers_close(x, y, tolerance)
    if type(a) is not type(b):
        return bool(a == b)
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(loose_equal(x, y, tolerance) for x, y in zip(a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(loose_equal(a[k], b[k], tolerance) for k in a)
    return bool(a == b)


def _contains(container: Any, item: Any) -> bool:
    if type(container) in (list, tuple):
        return any(loose_equal(item, element) for element in container)
    return item in container


def _power(base: Any, exponent: Any) -> Any:
    if type(exponent) is int and abs(exponent) > MAX_EXPONENT and type(base) is int and abs(
            base) > 1:
        raise HostEvalError(f"refusing to compute a power with exponent {exponent}")
    return operator.pow(base, exponent)


def _times(a: Any, b: Any) -> Any:
    for seq, count in ((a, b), (b, a)):
        if type(seq) in (str, list, tuple, bytes) and type(count) is int and (
                len(seq) * count > MAX_ITEMS):
            raise HostEvalError("refusing to build a sequence longer than a million items")
    return operator.mul(a, b)


_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: _times, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: _power,
}
_UNARY: dict[type, Callable[[Any], Any]] = {
    ast.Not: operator.not_, ast.USub: operator.neg, ast.UAdd: operator.pos,
}
_COMPARE: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: loose_equal, ast.NotEq: lambda a, b: not loose_equal(a, b),
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: _contains(b, a), ast.NotIn: lambda a, b: not _contains(b, a),
}


def evaluate(plan: HostAssert, sites: Mapping[int, Any], leaves: Mapping[int, Any]) -> bool:
    """Whether the assert holds; raises :class:`HostEvalError` where Python would raise."""
    try:
        return bool(_eval(plan.expr, plan, sites, leaves))
    except HostEvalError:
        raise
    except (ArithmeticError, TypeError, ValueError, LookupError, AttributeError,
            RecursionError, MemoryError) as exc:
        raise HostEvalError(f"{type(exc).__name__}: {exc}") from None


def _eval(node: ast.expr, plan: HostAssert, sites: Mapping[int, Any],
          leaves: Mapping[int, Any]) -> Any:
    special = plan.nodes.get(id(node))
    if special is not None:
        if special.kind == "literal":
            return special.value
        return (sites if special.kind == "site" else leaves)[special.key]

    def sub(child: ast.expr) -> Any:
        return _eval(child, plan, sites, leaves)

    if isinstance(node, ast.Compare):
        left = sub(node.left)
        for op, right_node in zip(node.ops, node.comparators):
            right = sub(right_node)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)](sub(node.left), sub(node.right))
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](sub(node.operand))
    if isinstance(node, ast.Call):
        func = node.func
        function = _FUNCTIONS[func.id] if isinstance(func, ast.Name) else _MATH[
            func.attr]  # type: ignore[attr-defined]
        return function(*map(sub, node.args), **{k.arg: sub(k.value) for k in node.keywords
                                                 if k.arg is not None})
    if isinstance(node, ast.Subscript):
        return sub(node.value)[sub(node.slice)]
    if isinstance(node, ast.Tuple):
        return tuple(map(sub, node.elts))
    if isinstance(node, ast.List):
        return list(map(sub, node.elts))
    raise HostEvalError(f"cannot evaluate {type(node).__name__} on the host")
