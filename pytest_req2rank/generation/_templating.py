"""Slot placeholders: finding them, filling them, and computing slot-dependent expected values.

A placeholder is ``{name}`` (the value as text) or ``{name!r}`` (its Python
literal). In prose every ``{name}`` must be a declared slot and ``{{``/``}}``
write literal braces. In code and file paths only declared names are replaced;
any other brace is left alone, because it is Python.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import Req2RankError

SlotValue = int | float | str | bool

_PROSE = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)(!r)?\}")
_CODE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(!r)?\}")
_WHOLE = re.compile(r"^\{([A-Za-z_][A-Za-z0-9_]*)\}$")


def prose_placeholders(text: str) -> list[str]:
    """Slot names referenced by a prose text (escaped braces excluded)."""
    return [m.group(1) for m in _PROSE.finditer(text) if m.group(1)]


def code_placeholders(text: str, declared: Iterable[str]) -> list[str]:
    """Declared slot names referenced by code or a path."""
    names = set(declared)
    return [m.group(1) for m in _CODE.finditer(text) if m.group(1) in names]


def _text(value: SlotValue, literal: bool) -> str:
    return repr(value) if literal else str(value)


def render_prose(text: str, values: Mapping[str, SlotValue]) -> str:
    """Fill a prose text; raises ``KeyError`` for an undeclared placeholder."""

    def replace(match: re.Match[str]) -> str:
        if match.group(1) is None:
            return match.group(0)[0]
        return _text(values[match.group(1)], bool(match.group(2)))

    return _PROSE.sub(replace, text)


def render_code(text: str, values: Mapping[str, SlotValue]) -> str:
    """Fill code or a path: only declared slot names are replaced."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            return match.group(0)
        return _text(values[name], bool(match.group(2)))

    return _CODE.sub(replace, text)


def render_expect(value: Any, values: Mapping[str, SlotValue]) -> Any:
    """Fill placeholders inside an expected value.

    A string that is exactly ``"{name}"`` becomes the slot's typed value; other
    strings (and dict keys) are filled as prose.
    """
    if isinstance(value, str):
        whole = _WHOLE.match(value)
        if whole and whole.group(1) in values:
            return values[whole.group(1)]
        return render_prose(value, values)
    if isinstance(value, list):
        return [render_expect(v, values) for v in value]
    if isinstance(value, dict):
        return {render_prose(k, values): render_expect(v, values) for k, v in value.items()}
    return value


def expect_placeholders(value: Any) -> list[str]:
    """Slot names referenced inside an expected value."""
    if isinstance(value, str):
        return prose_placeholders(value)
    if isinstance(value, list):
        return [n for v in value for n in expect_placeholders(v)]
    if isinstance(value, dict):
        return [n for k, v in value.items() for n in prose_placeholders(k) + expect_placeholders(v)]
    return []


_SAFE_BUILTINS: dict[str, Any] = {
    f.__name__: f
    for f in (abs, all, any, bool, dict, divmod, enumerate, float, int, len, list, max, min,
              range, reversed, round, set, sorted, str, sum, tuple, zip)
}
_SAFE_NODES = (
    ast.Expression, ast.Constant, ast.Name, ast.Load, ast.Store, ast.List, ast.Tuple, ast.Dict,
    ast.Set, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Call, ast.keyword,
    ast.Subscript, ast.Slice, ast.Attribute, ast.ListComp, ast.SetComp, ast.DictComp,
    ast.GeneratorExp, ast.comprehension, ast.operator, ast.unaryop, ast.boolop, ast.cmpop,
    ast.JoinedStr, ast.FormattedValue,
)


class ExpressionError(Req2RankError, ValueError):
    """An ``expect_expr`` is not a safe expression over slot values and plain data."""


def expression_names(expr: str) -> set[str]:
    """Check ``expr`` is a safe expression; return the free names it reads."""
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"is not a Python expression: {exc.msg}") from None
    bound: set[str] = set()
    loaded: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, _SAFE_NODES):
            raise ExpressionError(f"uses a {type(node).__name__}, which is not allowed")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise ExpressionError(f"reads the private attribute {node.attr!r}")
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, ast.Store) else loaded).add(node.id)
    return loaded - bound - set(_SAFE_BUILTINS)


def evaluate_expect(expr: str, values: Mapping[str, SlotValue]) -> Any:
    """Evaluate an ``expect_expr`` with the slot values as names; return plain JSON data."""
    unknown = expression_names(expr) - set(values)
    if unknown:
        raise ExpressionError(f"reads undeclared names {sorted(unknown)}")
    scope: dict[str, Any] = {"__builtins__": _SAFE_BUILTINS, **values}
    result = eval(compile(expr, "<expect_expr>", "eval"), scope)  # its names checked above
    return to_json(result)


def to_json(value: Any) -> Any:
    """``value`` as the sandbox would report it (tuples → lists); raises for non-JSON data."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise ExpressionError(f"is not plain JSON data: {exc}") from None


def is_json_plain(value: Any) -> bool:
    """True when ``value`` survives a JSON round trip unchanged."""
    try:
        return bool(to_json(value) == value and _same_shape(to_json(value), value))
    except ExpressionError:
        return False


def _same_shape(a: Any, b: Any) -> bool:
    if type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same_shape(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_shape(a[k], b[k]) for k in a)
    return True
