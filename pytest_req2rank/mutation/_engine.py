"""Enumerating first-order mutants of Python source: each a :class:`Mutant`, one small change
to one file.

Mutants are produced in source order, one operator application each. Mutants
that do not compile, or whose text equals the original or an earlier mutant,
are skipped. Equivalent mutants (same behaviour, different text) are *not*
detected: a mutation score counts them as survivors. Type annotations,
docstrings and ``if __name__ == "__main__":`` blocks are never mutated, since
no test can observe them.
"""

from __future__ import annotations

import ast
import copy
import random
import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ._operators import OPERATORS

_Path = tuple[tuple[str, int | None], ...]
_SKIPPED_FIELDS = {"annotation", "returns", "type_comment", "type_params"}


@dataclass(frozen=True)
class Mutant:
    """One mutation of a source. ``path`` is set when it came from a multi-file solution."""

    id: str
    kind: str
    line: int
    col: int
    description: str
    source: str
    path: str | None = None

    def apply(self, files: Mapping[str, str]) -> dict[str, str]:
        """The files of a solution with this mutant's file replaced."""
        if self.path is None or self.path not in files:
            raise KeyError(f"mutant {self.id} belongs to no file of this solution")
        return {**files, self.path: self.source}


def mutants(
    source: str,
    *,
    kinds: Iterable[str] | None = None,
    limit: int | None = None,
    rng_seed: int = 0,
    path: str | None = None,
) -> Iterator[Mutant]:
    """First-order mutants of ``source``, in source order.

    ``kinds`` restricts the operators (default: every registered one), ``limit``
    keeps a deterministic sample of that many (chosen with ``rng_seed``, still
    in source order), ``path`` labels the mutants of one file of a solution.
    Raises ``SyntaxError`` when ``source`` itself does not parse.
    """
    found = list(_enumerate(source, _operators(kinds), path))
    if limit is not None and limit < len(found):
        keep = set(random.Random(rng_seed).sample(range(len(found)), limit))
        found = [m for i, m in enumerate(found) if i in keep]
    yield from found


def mutate_files(
    files: Mapping[str, str],
    *,
    kinds: Iterable[str] | None = None,
    limit: int | None = None,
    rng_seed: int = 0,
) -> Iterator[Mutant]:
    """Mutants of a multi-file solution, one file at a time (``.py`` files, sorted by path).

    ``limit`` caps the total; apply a mutant with :meth:`Mutant.apply`.
    """
    selected = list(kinds) if kinds is not None else None
    found = [
        m for name in sorted(files) if name.endswith(".py")
        for m in mutants(files[name], kinds=selected, path=name)
    ]
    if limit is not None and limit < len(found):
        keep = set(random.Random(rng_seed).sample(range(len(found)), limit))
        found = [m for i, m in enumerate(found) if i in keep]
    yield from found


def _operators(kinds: Iterable[str] | None) -> list[tuple[str, Any]]:
    if kinds is None:
        return list(OPERATORS.items())
    chosen = list(kinds)
    unknown = [k for k in chosen if k not in OPERATORS]
    if unknown:
        raise KeyError(f"unknown mutation kinds {unknown}; registered: {sorted(OPERATORS)}")
    return [(k, OPERATORS[k]) for k in chosen]


def _enumerate(source: str, operators: list[tuple[str, Any]], label: str | None) -> Iterator[Mutant]:
    tree = ast.parse(source)
    original = ast.unparse(tree)
    seen = {original}
    for node, where in _walk(tree, ()):
        line, col = _position(node)
        for kind, operator in operators:
            for variant, (replacement, description) in enumerate(operator(node)):
                mutated_tree = copy.deepcopy(tree)
                _replace(mutated_tree, where, replacement)
                text = ast.unparse(ast.fix_missing_locations(mutated_tree))
                if text in seen or not _compiles(text):
                    continue
                seen.add(text)
                yield Mutant(
                    id=f"{label or 'source'}:{line}:{col}:{kind}:{variant}",
                    kind=kind, line=line, col=col,
                    description=f"line {line}: {description}",
                    source=text, path=label,
                )


def _walk(node: ast.AST, where: _Path) -> Iterator[tuple[ast.AST, _Path]]:
    if _is_main_guard(node) or _is_docstring(node):
        return
    yield node, where
    for field, value in ast.iter_fields(node):
        if field in _SKIPPED_FIELDS:
            continue
        if isinstance(value, list):
            for i, child in enumerate(value):
                if isinstance(child, ast.AST):
                    yield from _walk(child, (*where, (field, i)))
        elif isinstance(value, ast.AST):
            yield from _walk(value, (*where, (field, None)))


def _replace(tree: ast.AST, where: _Path, replacement: ast.AST) -> None:
    parent = tree
    for field, index in where[:-1]:
        child = getattr(parent, field)
        parent = child[index] if index is not None else child
    field, index = where[-1]
    if index is None:
        setattr(parent, field, replacement)
    else:
        getattr(parent, field)[index] = replacement


def _position(node: ast.AST) -> tuple[int, int]:
    anchor = node.target if isinstance(node, ast.comprehension) else node
    return getattr(anchor, "lineno", 0), getattr(anchor, "col_offset", 0)


def _is_main_guard(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__"
    )


def _is_docstring(node: ast.AST) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


def _compiles(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<mutant>", "exec")
    except (SyntaxError, ValueError):
        return False
    return True
