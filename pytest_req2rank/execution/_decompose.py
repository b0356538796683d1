"""Decomposing HumanEval's ``check(candidate)`` into tests, and the asserts the host decides.

Every top-level statement of ``check`` that holds an assert is one test. Each
``candidate(...)`` call — and each call of the entry point by its name, which in the
program is the same function — becomes ``__r2r_call__(site, args, kwargs)``, so a run of
the check can record (and later replay) the calls the test makes. An assert of a
shape the host can evaluate — whitelisted operators and pure functions around
candidate calls whose arguments do not involve the candidate — becomes
``__r2r_assert__(id, lambda: ...)`` with every non-literal candidate-free operand
wrapped as ``__r2r_leaf__(id, ...)``: the reference run records those operands and
the host evaluates the assert on the candidate's returned values. A test whose
asserts are all of that shape, and whose calls all sit inside them, is
*host-decided*; the others are judged by a checker run in which no candidate code
exists (see :mod:`._replay`).

A check that cannot be instrumented (the candidate passed around as a value, ``*args``
calls, a top-level ``return``, an argument inspected after a call) is split into the
same tests with its statements as written — in the sandbox the candidate's name is then
bound to the recording or answering function — and no test is host-decided. A check
whose statements cannot be split is one test, ``check``.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, Literal

from ..errors import Req2RankError
from ._ast_tools import (
    MISSING,
    assigned_names,
    is_name,
    literal,
    outside_host_asserts,
    segment,
    shallow_copy,
    singleton,
    split_lines,
)

SAFE_FUNCTIONS = frozenset({
    "abs", "all", "any", "bool", "float", "frozenset", "int", "len", "list", "max", "min",
    "round", "set", "sorted", "str", "sum", "tuple",
})
SAFE_MATH = frozenset({"ceil", "fabs", "floor", "isclose", "isinf", "isnan", "sqrt"})
BIN_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
UNARY_OPS = (ast.Not, ast.USub, ast.UAdd)


@dataclass(frozen=True)
class Node:
    """How the host gets one node of a decomposed assert: a candidate call, a literal or a leaf."""

    kind: Literal["site", "literal", "leaf"]
    key: int = 0
    value: Any = None


@dataclass
class HostAssert:
    """An assert the host evaluates: its expression and how each special node is obtained."""

    expr: ast.expr
    nodes: dict[int, Node] = field(default_factory=dict)
    """``id(ast node)`` → how to obtain its value."""

    @cached_property
    def source(self) -> str:
        """The expression as source, for failure messages (only failures need it)."""
        return ast.unparse(self.expr)


@dataclass(frozen=True)
class CheckStep:
    """One top-level statement of ``check``; ``test`` is its test index, if any. A step
    left as written has its source and no tree."""

    tree: ast.stmt | None
    test: int | None
    unparsed: str | None = None

    @cached_property
    def source(self) -> str:
        """The instrumented statement as source (only recording and checker runs need it)."""
        if self.unparsed is not None:
            return self.unparsed
        return ast.unparse(self.tree)  # type: ignore[arg-type]


@dataclass
class DecomposedCheck:
    """One ``check`` split into steps and tests, and which tests the host decides."""

    param: str
    entry: str
    """The entry point's name when the check may call the candidate by it ('' otherwise)."""
    steps: list[CheckStep]
    asserts: dict[int, HostAssert]
    host_tests: frozenset[int]
    shown: list[str]
    """Each test's original source (for reports)."""
    why_not: str = ""
    """Why the steps are the statements as written, not instrumented ('' when instrumented)."""
    whole: bool = False
    """The whole check is one test (its statements could not be split)."""

    @property
    def tests(self) -> int:
        return len(self.shown)

    @property
    def names(self) -> list[str]:
        """The tests' names in results."""
        return ["check"] if self.whole else [f"check[{index}]" for index in range(self.tests)]


@lru_cache(maxsize=512)
def decompose(test: str, entry_point: str = "") -> DecomposedCheck:
    """The decomposition of a HumanEval-form ``test`` of the function ``entry_point``; raises
    ``SyntaxError`` when it does not parse."""
    tree = ast.parse(test)
    check = _check_function(tree)
    assigned = assigned_names(tree)
    entry = entry_point if entry_point.isidentifier() and entry_point not in assigned else ""
    if check is None or not check.args.args:
        return _as_written(test, "candidate", entry, "no check(candidate)")
    param = check.args.args[0].arg
    lines = split_lines(test)
    builder = _Builder(frozenset({param, entry} - {""}), assigned)
    steps: list[CheckStep] = []
    shown: list[str] = []
    host: set[int] = set()
    for stmt in check.body:
        index = len(shown) if _holds_assert(stmt) else None
        try:
            instrumented, decided = builder.statement(stmt)
        except _NotInstrumentable as exc:
            return _as_written(test, param, entry, str(exc))
        if index is not None:
            shown.append(textwrap.dedent(segment(lines, stmt)))
            if decided:
                host.add(index)
        steps.append(CheckStep(instrumented, index))
    if not shown:
        return _as_written(test, param, entry, "check() holds no assert")
    return DecomposedCheck(param, entry, steps, builder.asserts, frozenset(host), shown)


def _check_function(tree: ast.Module) -> ast.FunctionDef | None:
    return next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"),
                None)


def _as_written(test: str, param: str, entry: str, why: str) -> DecomposedCheck:
    """The check's top-level statements as written, each holding an assert one test; or the
    whole check as one test when none holds an assert or one cannot stand alone (a
    top-level ``return``). Parsed afresh: an instrumentation that gave up part way has
    rewritten the statements before it in place."""
    check = _check_function(ast.parse(test))
    whole = DecomposedCheck(param, entry, [CheckStep(None, 0, f"check({param})")], {},
                            frozenset(), [f"check({param})"], why, whole=True)
    if check is None or not any(_holds_assert(stmt) for stmt in check.body):
        return whole
    lines = split_lines(test)
    steps: list[CheckStep] = []
    shown: list[str] = []
    for stmt in check.body:
        source = textwrap.dedent(segment(lines, stmt))
        try:
            compile(source, "<check>", "exec", dont_inherit=True)
        except SyntaxError:
            return whole
        index = len(shown) if _holds_assert(stmt) else None
        if index is not None:
            shown.append(source)
        steps.append(CheckStep(None, index, source))
    return DecomposedCheck(param, entry, steps, {}, frozenset(), shown, why)


def _holds_assert(stmt: ast.stmt) -> bool:
    """A top-level statement holding an assert (a loop of asserts too) is one test."""
    return any(isinstance(node, ast.Assert) for node in ast.walk(stmt))


class _NotInstrumentable(Req2RankError):
    """The candidate is used other than by plain calls, or a statement cannot be rewritten."""


class _Builder:
    def __init__(self, callees: frozenset[str], assigned: frozenset[str]) -> None:
        self.callees, self.assigned = callees, assigned
        """``callees``: the names of the candidate in the check."""
        self.asserts: dict[int, HostAssert] = {}
        self.sites = 0
        self.leaves = 0
        self.passed: set[str] = set()
        """Names handed to the candidate: a replayed call cannot mutate them."""
        self.tainted = False
        """Set once a statement calls the candidate outside host asserts: later tests may use
        what it returned, so the host cannot decide them alone."""
        self._free_nodes: dict[ast.AST, bool] = {}
        """Node → whether it is free of the candidate; the keys keep the nodes alive."""

    def callee(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id in self.callees

    def statement(self, stmt: ast.stmt) -> tuple[ast.stmt, bool]:
        """The instrumented ``stmt`` (rewritten in place) and whether the host decides all of
        it. A host assert keeps its original expression: the rewriting never enters it."""
        decided = True
        calls_outside = False
        for node in ast.walk(stmt):
            if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Nonlocal, ast.Global)):
                raise _NotInstrumentable(f"check() uses {type(node).__name__.lower()} at top level")
            if isinstance(node, ast.Assert) and self._free(node.test) and self.passed & {
                    n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}:
                raise _NotInstrumentable("check() inspects an argument after a call (a mutation)")
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and self.callee(node.func):
                self.passed |= {a.id for a in node.args if isinstance(a, ast.Name)}
        new = _Rewriter(self).visit(stmt)
        for node in outside_host_asserts(new):
            if isinstance(node, ast.Assert):
                decided = False
            if isinstance(node, ast.Call) and is_name(node.func, "__r2r_call__"):
                calls_outside = True
        decided = decided and not calls_outside and not self.tainted
        self.tainted = self.tainted or calls_outside
        return new, decided

    def call(self, node: ast.Call) -> ast.Call:
        """``candidate(a, k=b)`` → ``__r2r_call__(site, (a,), {'k': b})``."""
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
                k.arg is None for k in node.keywords):
            raise _NotInstrumentable("a candidate call with * or ** arguments")
        self.sites += 1
        kwargs = ast.Dict(keys=[ast.Constant(k.arg) for k in node.keywords],
                          values=[k.value for k in node.keywords])
        return ast.Call(ast.Name("__r2r_call__", ast.Load()),
                        [ast.Constant(self.sites), ast.Tuple(list(node.args), ast.Load()), kwargs],
                        [])

    def host_assert(self, node: ast.Assert) -> ast.stmt | None:
        """The instrumented statement for a host-evaluable assert, or None."""
        original = node.test
        if not self._shape(original):
            return None
        key = len(self.asserts)
        host = HostAssert(original)
        rewritten = self._instrument(original, host)
        self.asserts[key] = host
        lam = ast.Lambda(ast.arguments([], [], None, [], [], None, []), rewritten)
        return ast.Expr(ast.Call(ast.Name("__r2r_assert__", ast.Load()),
                                 [ast.Constant(key), lam], []))

    def _instrument(self, node: ast.expr, host: HostAssert) -> ast.expr:
        if self._free(node):
            value = literal(node)
            if value is not MISSING:
                host.nodes[id(node)] = Node("literal", value=value)
                return node
            self.leaves += 1
            host.nodes[id(node)] = Node("leaf", self.leaves)
            return ast.Call(ast.Name("__r2r_leaf__", ast.Load()),
                            [ast.Constant(self.leaves), node], [])
        if isinstance(node, ast.Call) and self.callee(node.func):
            new = self.call(node)
            host.nodes[id(node)] = Node("site", self.sites)
            return new
        copy = shallow_copy(node)
        for name, value in ast.iter_fields(node):
            if isinstance(value, ast.expr) and name != "func":
                setattr(copy, name, self._instrument(value, host))
            elif isinstance(value, list):
                setattr(copy, name, [self._instrument(v, host) if isinstance(v, ast.expr) else
                                     _keyword(v, self, host) if isinstance(v, ast.keyword) else v
                                     for v in value])
        return copy

    def _free(self, node: ast.AST) -> bool:
        """True when ``node`` does not mention the candidate (memoized: ``_shape`` asks about
        every subtree)."""
        found = self._free_nodes.get(node)
        if found is None:
            found = not self.callee(node) and all(
                self._free(child) for child in ast.iter_child_nodes(node))
            self._free_nodes[node] = found
        return found

    def _shape(self, node: ast.expr) -> bool:
        """True when ``node`` involves the candidate only in ways the host can evaluate."""
        if self._free(node):
            return True
        if isinstance(node, ast.Call) and self.callee(node.func):
            return all(self._free(a) for a in node.args) and all(self._free(k.value)
                                                                for k in node.keywords)
        if isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, parts, parts[1:]):
                if isinstance(op, (ast.Is, ast.IsNot)) and not (singleton(left)
                                                              or singleton(right)):
                    return False
            return all(self._shape(p) for p in parts)
        if isinstance(node, ast.BinOp):
            return isinstance(node.op, BIN_OPS) and self._shape(node.left) and self._shape(
                node.right)
        if isinstance(node, ast.UnaryOp):
            return isinstance(node.op, UNARY_OPS) and self._shape(node.operand)
        if isinstance(node, ast.Call):
            if any(isinstance(a, ast.Starred) for a in node.args) or any(
                    k.arg is None for k in node.keywords):
                return False
            return self._safe_function(node.func) and all(
                self._shape(a) for a in [*node.args, *(k.value for k in node.keywords)])
        if isinstance(node, ast.Subscript):
            return self._shape(node.value) and self._free(node.slice)
        if isinstance(node, (ast.Tuple, ast.List)):
            return all(self._shape(e) for e in node.elts)
        return False

    def _safe_function(self, func: ast.expr) -> bool:
        if isinstance(func, ast.Name):
            return func.id in SAFE_FUNCTIONS and func.id not in self.assigned
        return (isinstance(func, ast.Attribute) and is_name(func.value, "math")
                and func.attr in SAFE_MATH and "math" not in self.assigned)


class _Rewriter(ast.NodeTransformer):
    def __init__(self, builder: _Builder) -> None:
        self.builder = builder

    def visit_Assert(self, node: ast.Assert) -> ast.AST:
        replaced = self.builder.host_assert(node)
        return replaced if replaced is not None else self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if not self.builder.callee(node.func):
            return self.generic_visit(node)
        node.args = [self.visit(a) for a in node.args]
        node.keywords = [self.visit(k) for k in node.keywords]
        return self.builder.call(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.builder.callees:
            raise _NotInstrumentable(f"check() uses {node.id} other than by calling it")
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        if not self.builder._free(node):
            raise _NotInstrumentable("the candidate is called inside a lambda")
        return node


def _keyword(value: ast.keyword, builder: _Builder, host: HostAssert) -> ast.keyword:
    return ast.keyword(value.arg, builder._instrument(value.value, host))
