"""The catalogue of extra constraints that constraint stacking may add to a requirement.

A constraint either carries a *checker* (Python source defining
``_violations(sources: dict[str, str]) -> list[str]`` over the solution's file
texts) and is then enforced by a hidden probe that runs the checker in the
sandbox and expects ``[]``; or it has none and is *judge-only*: shown to the
target, flagged to the judges, never tested. A probe-backed constraint is only
stacked on a requirement whose reference satisfies it, decided on the host by
the same checker (it parses the reference, never runs it).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..models import Probe

_NO_DYNAMIC_CODE = '''
def _violations(sources):
    import ast
    calls = {"eval", "exec", "compile", "__import__"}
    modules = {"pickle", "marshal", "shelve", "subprocess"}
    out = []
    for path, text in sorted(sources.items()):
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in calls:
                out.append(f"{path}:{node.lineno}: {node.func.id}()")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and isinstance(node.func.value, ast.Name) and node.func.value.id == "os"
                  and node.func.attr in ("system", "popen")):
                out.append(f"{path}:{node.lineno}: os.{node.func.attr}()")
            elif isinstance(node, ast.Import):
                out += [f"{path}:{node.lineno}: import {a.name}" for a in node.names
                        if a.name.split(".")[0] in modules]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in modules:
                out.append(f"{path}:{node.lineno}: from {node.module} import")
    return out
'''

_NO_PRINT = '''
def _violations(sources):
    import ast
    return [f"{path}:{node.lineno}: print()" for path, text in sorted(sources.items())
            for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"]
'''

_SHORT_FUNCTIONS = '''
def _violations(sources):
    import ast
    return [f"{path}:{node.lineno}: {node.name} has {node.end_lineno - node.lineno + 1} lines"
            for path, text in sorted(sources.items()) for node in ast.walk(ast.parse(text))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > 40]
'''

_SHALLOW_NESTING = '''
def _violations(sources):
    import ast
    blocks = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)
    out = []
    def walk(node, depth, where):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                walk(child, 0, where)
            elif isinstance(node, ast.If) and node.orelse == [child] and isinstance(child, ast.If):
                walk(child, depth, where)  # an elif is no deeper than its if
            elif isinstance(child, blocks):
                if depth + 1 > 4:
                    out.append(f"{where}:{child.lineno}: nested {depth + 1} blocks deep")
                walk(child, depth + 1, where)
            else:
                walk(child, depth, where)
    for path, text in sorted(sources.items()):
        walk(ast.parse(text), 0, path)
    return out
'''

_STDLIB_ONLY = '''
def _violations(sources):
    import ast, sys
    own = {p[:-3].replace("/", ".").split(".")[0] for p in sources}
    out = []
    for path, text in sorted(sources.items()):
        for node in ast.walk(ast.parse(text)):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            out += [f"{path}:{node.lineno}: {n}" for n in names
                    if n.split(".")[0] not in sys.stdlib_module_names and n.split(".")[0] not in own]
    return out
'''

_IMPORT_SIDE_EFFECTS = '''
def _violations(sources):
    import ast
    plain = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
             ast.Assign, ast.AnnAssign)
    def main_guard(node):
        test = node.test
        return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
                and test.left.id == "__name__")
    def bad(body, path):
        for node in body:
            if isinstance(node, plain):
                continue
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue
            if isinstance(node, ast.If) and (main_guard(node) or not bad(node.body + node.orelse, path)):
                continue
            if isinstance(node, ast.Try) and not bad(
                    node.body + [s for h in node.handlers for s in h.body] + node.orelse, path):
                continue
            return f"{path}:{node.lineno}: top-level {type(node).__name__} statement"
        return None
    found = [bad(ast.parse(text).body, path) for path, text in sorted(sources.items())]
    return [f for f in found if f]
'''


@lru_cache(maxsize=4096)
def _violations(checker: str, sources: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    scope: dict[str, Any] = {}
    exec(compile(checker, "<constraint checker>", "exec"), scope)  # noqa: S102 - our own code
    try:
        return tuple(scope["_violations"](dict(sources)))
    except SyntaxError as exc:
        return (f"does not parse: {exc.msg}",)


class ExtraConstraint(BaseModel):
    """One catalogue entry: its text, and the checker that backs it (None: judge-only)."""

    model_config = ConfigDict(frozen=True)

    id: str
    text: str
    checker: str | None = None

    @property
    def judge_only(self) -> bool:
        return self.checker is None

    def violations(self, files: Mapping[str, str]) -> list[str]:
        """The checker's findings on ``files`` (Python sources only); [] for judge-only ones."""
        if self.checker is None:
            return []
        sources = tuple(sorted((p, c) for p, c in files.items() if p.endswith(".py")))
        return list(_violations(self.checker, sources))

    def applies_to(self, files: Mapping[str, str], constraints: tuple[str, ...]) -> bool:
        """Whether stacking fits: not already stated, and a reference ``files`` that satisfies it."""
        if self.id == "stdlib-only" and any("standard library" in c.lower() for c in constraints):
            return False
        return not self.violations(files)

    def probe(self, files: Mapping[str, str]) -> Probe:
        """The hidden probe enforcing the constraint on a solution laid out like ``files``."""
        if self.checker is None:
            raise ValueError(f"constraint {self.id!r} is judge-only and has no probe")
        paths = sorted(p for p in files if p.endswith(".py"))
        code = (f"import importlib.util as _util\n_sources = {{}}\nfor _path in {paths!r}:\n"
                "    _spec = _util.find_spec(_path[:-3].replace('/', '.'))\n"
                "    with open(_spec.origin, encoding='utf-8') as _file:\n"
                "        _sources[_path] = _file.read()\n"
                f"{self.checker.strip()}\nresult = _violations(_sources)\n")
        ast.parse(code)
        return Probe(name=f"constraint:{self.id}", code=code, expect=[], priority="should")


CATALOGUE: dict[str, ExtraConstraint] = {
    c.id: c
    for c in (
        ExtraConstraint(id="no-dynamic-code", checker=_NO_DYNAMIC_CODE,
                        text="Never use eval, exec, compile, __import__, pickle, marshal, shelve, "
                             "subprocess, os.system or os.popen."),
        ExtraConstraint(id="no-print", checker=_NO_PRINT,
                        text="Report through return values and exceptions only: the solution "
                             "never calls print()."),
        ExtraConstraint(id="short-functions", checker=_SHORT_FUNCTIONS,
                        text="No function or method is longer than 40 lines."),
        ExtraConstraint(id="shallow-nesting", checker=_SHALLOW_NESTING,
                        text="No statement is nested more than four blocks deep (if, for, while, "
                             "with and try each count) within a function."),
        ExtraConstraint(id="stdlib-only", checker=_STDLIB_ONLY,
                        text="Import only the Python standard library and the solution's own "
                             "modules."),
        ExtraConstraint(id="import-side-effects", checker=_IMPORT_SIDE_EFFECTS,
                        text="Importing a module of the solution has no side effects: its top "
                             "level holds only imports, definitions, assignments and an optional "
                             "`if __name__ == \"__main__\":` block."),
        ExtraConstraint(id="type-hints",
                        text="Every public function and method has type hints on its parameters "
                             "and return value."),
        ExtraConstraint(id="docstrings",
                        text="Every public class and function has a docstring that says what it "
                             "does and what it raises."),
        ExtraConstraint(id="error-messages",
                        text="Every exception the solution raises carries a message naming the "
                             "offending value."),
    )
}
"""Constraint id → constraint, in the order stacking lists them."""
