"""Small AST helpers for :mod:`._decompose`."""

from __future__ import annotations

import ast
import re
from typing import Any

SINGLETONS = (True, False, None)

MISSING = object()
"""What :func:`literal` returns for a node that is not a literal."""


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(source: str) -> list[str]:
    """The lines of ``source`` with their endings, as the compiler counts them (a form feed
    ends none): split once, for :func:`segment`."""
    return _LINE.findall(source)


def segment(lines: list[str], node: ast.AST) -> str:
    """``ast.get_source_segment(source, node, padded=True)`` from ``split_lines(source)``,
    without splitting the source again for every node."""
    first: int = node.lineno - 1  # type: ignore[attr-defined]
    last: int = node.end_lineno - 1  # type: ignore[attr-defined]
    start: int = node.col_offset  # type: ignore[attr-defined]
    end: int = node.end_col_offset  # type: ignore[attr-defined]
    if first == last:
        return lines[first].encode()[start:end].decode()
    head = lines[first].encode()
    padding = "".join(c if c in "\f\t" else " " for c in head[:start].decode())
    return "".join([padding + head[start:].decode(), *lines[first + 1:last],
                    lines[last].encode()[:end].decode()])


def literal(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return MISSING


def singleton(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and any(node.value is s for s in SINGLETONS)


def is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def outside_host_asserts(tree: ast.AST) -> list[ast.AST]:
    """The nodes of ``tree`` that are not inside an ``__r2r_assert__(...)`` call."""
    found: list[ast.AST] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Call) and is_name(node.func, "__r2r_assert__"):
            continue
        found.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return found


def shallow_copy(node: ast.expr) -> ast.expr:
    copy = type(node)(**{name: getattr(node, name) for name in node._fields if hasattr(node, name)})
    return ast.copy_location(copy, node)


def assigned_names(tree: ast.AST) -> frozenset[str]:
    """Names the test binds anywhere (they shadow builtins such as ``str``), imports excepted
    for ``math`` so that ``import math`` keeps ``math.isclose`` trusted."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                if not (bound == "math" and alias.name == "math"
                        and isinstance(node, ast.Import)):
                    names.add(bound)
    return frozenset(names)
