"""The program a several-block answer means for a function task (after EvalPlus's sanitizer).

The block that defines the entry point is the program, as written: the last such block
(a later block is the model's correction of an earlier one), skipping a bare restatement of
the prompt's stub when the answer also implements it. The names it uses but does not
define are looked up among the other blocks' top-level definitions (functions, classes,
assignments) and imports, and what they reach in turn (a call-graph walk over the
names each one uses, scoped by :mod:`symtable`): those definitions and imports are put
before it. Anything else — a usage example, prints, asserts, tests — is left out. A
block that does not parse is never searched for helpers; the chosen block is found by a
``def NAME(`` line when no block that parses defines the entry point (code cut by the
token limit), and is then kept as written.
"""

from __future__ import annotations

import ast
import builtins
import re
import symtable
from dataclasses import dataclass

_BUILTINS = frozenset(dir(builtins))


@dataclass(frozen=True)
class _Definition:
    """A top-level statement of another block: the names it binds, its source, where it is."""

    names: frozenset[str]
    source: str
    block: int
    line: int
    is_import: bool


def entry_program(blocks: list[str], entry_point: str) -> str | None:
    """The program of ``blocks`` that defines ``entry_point``, with the helpers and imports
    it reaches in the other blocks; ``None`` when no block defines it."""
    trees = [_tree(block) for block in blocks]  # each block parsed once, for every question
    chosen = _chosen(blocks, trees, entry_point)
    if chosen is None:
        return None
    program = blocks[chosen]
    if trees[chosen] is None:
        return program
    pool = [d for k, (block, tree) in enumerate(zip(blocks, trees, strict=True)) if k != chosen
            for d in _definitions(block, tree, k, entry_point)]
    if not pool:
        return program
    read, bound = _names(program)
    wanted = read - bound
    kept: list[_Definition] = []
    while wanted:
        name = wanted.pop()
        found = _nearest([d for d in pool if name in d.names and d not in kept], chosen)
        if found is None:
            continue
        kept.append(found)
        bound |= found.names
        if not found.is_import:
            wanted |= _names(found.source)[0] - bound
    if not kept:
        return program
    kept.sort(key=lambda d: (d.block, d.line))
    imports = "\n".join(d.source for d in kept if d.is_import)
    helpers = "\n\n\n".join(d.source for d in kept if not d.is_import)
    return "\n\n\n".join(part for part in (imports, helpers) if part) + "\n\n\n" + program


def _chosen(blocks: list[str], trees: list[ast.Module | None], entry_point: str) -> int | None:
    defining = [k for k, tree in enumerate(trees) if _defines(tree, entry_point)]
    if defining:
        implemented = [k for k in defining if not _stub(trees[k], entry_point)]
        return (implemented or defining)[-1]
    pattern = re.compile(rf"^(?:async[ \t]+)?(?:def|class)[ \t]+{re.escape(entry_point)}\b",
                         re.MULTILINE)
    found = [k for k, block in enumerate(blocks) if pattern.search(block)]
    return found[-1] if found else None


def _tree(code: str) -> ast.Module | None:
    """``code``'s tree, None when it does not parse."""
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError):
        return None


def parses(code: str) -> bool:
    """True when ``code`` is Python that parses."""
    return _tree(code) is not None


def defines(code: str, name: str) -> bool:
    """True when ``code`` parses and defines ``name`` at module level (a function, a class or
    an assignment)."""
    return _defines(_tree(code), name)


def _defines(tree: ast.Module | None, name: str) -> bool:
    for node in tree.body if tree is not None else []:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) \
                and node.name == name:
            return True
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return True
    return False


def _stub(tree: ast.Module | None, name: str) -> bool:
    """True when the block's definition of ``name`` has no body beyond a docstring, ``pass``
    or ``...`` (the prompt's signature repeated)."""
    for node in tree.body if tree is not None else []:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return all(isinstance(s, ast.Pass) or isinstance(s, ast.Expr) and isinstance(
                s.value, ast.Constant) and (s.value.value is Ellipsis or isinstance(
                    s.value.value, str)) for s in node.body)
    return False


def _definitions(block: str, tree: ast.Module | None, index: int,
                 entry_point: str) -> list[_Definition]:
    """The top-level definitions and imports of a block that parses (none when it does not);
    another definition of the entry point is a draft, never a helper."""
    if tree is None:
        return []
    lines = block.splitlines()
    found = []
    for node in tree.body:
        names = _bound_by(node)
        is_import = isinstance(node, ast.Import | ast.ImportFrom)
        if not names or entry_point in names or not is_import and not isinstance(
                node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Assign
                | ast.AnnAssign):
            continue
        if isinstance(node, ast.ImportFrom) and node.level:
            continue  # a relative import names a package the answer does not have
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        source = "\n".join(lines[start - 1:node.end_lineno or node.lineno])
        found.append(_Definition(frozenset(names), source, index, start, is_import))
    return found


def _nearest(candidates: list[_Definition], chosen: int) -> _Definition | None:
    """The definition closest before the chosen block, else the first one after it."""
    before = [d for d in candidates if d.block < chosen]
    if before:
        return max(before, key=lambda d: (d.block, d.line))
    return min(candidates, key=lambda d: (d.block, d.line), default=None)


def _bound_by(node: ast.stmt) -> set[str]:
    """The module-level names one top-level statement binds."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names
                if alias.name != "*"}
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = [node.target]
    names: set[str] = set()
    for target in targets:
        names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def _names(source: str) -> tuple[set[str], set[str]]:
    """The global names ``source`` reads anywhere (in its functions and classes too; builtins
    left out), and the names it binds at module level."""
    try:
        table = symtable.symtable(source, "<answer>", "exec")
    except (SyntaxError, ValueError):
        return set(), set()
    read: set[str] = set()
    bound = {symbol.get_name() for symbol in table.get_symbols()
             if symbol.is_assigned() or symbol.is_imported() or symbol.is_namespace()}
    pending = [table]
    while pending:
        scope = pending.pop()
        pending += scope.get_children()
        for symbol in scope.get_symbols():
            if symbol.is_referenced() and (scope.get_type() == "module" or symbol.is_global()):
                read.add(symbol.get_name())
    return read - _BUILTINS, bound
