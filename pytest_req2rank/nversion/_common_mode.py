"""The library of common-mode failures: algorithm-level faults, one AST transformation each.

A common-mode failure is a misconception a programmer carries into every version it writes
(an inclusive bound taken as exclusive, empty input forgotten, ``/`` for ``//``). Injected
into every version of a task, it is the algorithm-level fault (Pat-AL, docs/nversion.md,
Patterns). Each kind is a rewrite over the standard :mod:`ast`: its operator follows the
mutation engine's protocol (a node in, ``(replacement, description)`` pairs out, replacements
built from copies) and ``comparison-strictness`` *is* the engine's ``boundary`` operator. Unlike a
first-order mutant, :meth:`CommonModeFailure.inject` rewrites *every* site of the pattern:
the misconception is applied consistently. The catalogue (titles, descriptions, the task
families each kind is typical of) is data, ``common_mode/failures.toml``.
"""

from __future__ import annotations

import ast
import copy
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from ..errors import Req2RankError
from ..mutation import OPERATORS
from ._library import FAMILIES, LibraryError

Replacement = tuple[ast.AST, str]
CommonModeOperator = Callable[[ast.AST, frozenset[str]], Iterator[Replacement]]
"""A node and the code's parameter names in; replacements (the first one is used) out."""

CATALOGUE_FILE = "common_mode/failures.toml"
_SKIPPED_FIELDS = {"annotation", "returns", "type_comment", "type_params", "decorator_list"}
_OPERATORS: dict[str, CommonModeOperator] = {}


class NotApplicable(Req2RankError, ValueError):
    """The failure's pattern does not occur in the code."""


def _operator(kind: str) -> Callable[[CommonModeOperator], CommonModeOperator]:
    def register(func: CommonModeOperator) -> CommonModeOperator:
        _OPERATORS[kind] = func
        return func
    return register


@dataclass(frozen=True)
class CommonModeFailure:
    """One kind of common-mode failure: its catalogue entry and its transformation."""

    kind: str
    title: str
    description: str
    families: tuple[str, ...]
    operator: CommonModeOperator = field(repr=False, compare=False)

    @property
    def name(self) -> str:
        return self.kind

    def __call__(self, code: str) -> str | None:
        """``code`` with the failure injected, or None where it does not apply (the injector
        protocol of :func:`~._faults.inject_common_mode`)."""
        text, found = _rewrite(code, self.operator)
        return text if found else None

    def sites(self, code: str) -> list[str]:
        """Where the pattern occurs in ``code``: one ``line N: what changes`` per site."""
        return _rewrite(code, self.operator)[1]

    def applies(self, code: str) -> bool:
        """Whether the pattern occurs in ``code`` (the transform changes it)."""
        return bool(self.sites(code))

    def inject(self, code: str) -> str:
        """``code`` with every site of the pattern rewritten; raises :class:`NotApplicable`
        when there is none. Deterministic: the same code gives the same text."""
        text, found = _rewrite(code, self.operator)
        if not found:
            raise NotApplicable(f"common-mode failure {self.kind!r} does not apply to this code")
        return text


def _rewrite(code: str, operator: CommonModeOperator) -> tuple[str, list[str]]:
    tree = ast.parse(code)
    parameters = frozenset(a.arg for node in ast.walk(tree) if isinstance(node, ast.arguments)
                           for a in (*node.posonlyargs, *node.args, *node.kwonlyargs))
    found: list[str] = []
    new_tree = _visit(tree, operator, parameters, found)
    return ast.unparse(ast.fix_missing_locations(new_tree)) + "\n", found


def _visit(node: ast.AST, operator: CommonModeOperator, parameters: frozenset[str],
           found: list[str]) -> ast.AST:
    """Rewrite children first, then ``node`` itself with the operator's first replacement."""
    if _is_docstring(node):
        return node
    for name, value in ast.iter_fields(node):
        if name in _SKIPPED_FIELDS:
            continue
        if isinstance(value, list):
            value[:] = [_visit(v, operator, parameters, found) if isinstance(v, ast.AST) else v
                        for v in value]
        elif isinstance(value, ast.AST):
            setattr(node, name, _visit(value, operator, parameters, found))
    for replacement, description in operator(node, parameters):
        anchor = node.target if isinstance(node, ast.comprehension) else node
        found.append(f"line {getattr(anchor, 'lineno', 0)}: {description}")
        return ast.copy_location(replacement, node) if hasattr(node, "lineno") else replacement
    return node


def _is_docstring(node: ast.AST) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


def _text(node: ast.AST) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= 40 else text[:39] + "…"


def _call_to(node: ast.AST, *names: str) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in names)


def _plus(node: ast.expr, delta: int) -> ast.expr:
    op: ast.operator = ast.Add() if delta > 0 else ast.Sub()
    return ast.BinOp(left=copy.deepcopy(node), op=op, right=ast.Constant(abs(delta)))


@_operator("off-by-one")
def off_by_one(node: ast.AST, parameters: frozenset[str]) -> Iterator[Replacement]:
    """``range(a, b)`` → ``range(a, b + 1)``: an exclusive bound taken as inclusive."""
    if _call_to(node, "range") and isinstance(node, ast.Call) and 1 <= len(node.args) <= 2:
        new = copy.deepcopy(node)
        stop = 0 if len(node.args) == 1 else 1
        new.args[stop] = _plus(node.args[stop], 1)
        yield new, f"`{_text(node)}` → `{_text(new)}`"


@_operator("dropped-last-element")
def dropped_last(node: ast.AST, parameters: frozenset[str]) -> Iterator[Replacement]:
    """A loop over an input sequence stops before its last element: ``for x in xs`` →
    ``for x in xs[:-1]``, ``range(len(xs))`` → ``range(len(xs) - 1)``."""
    if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.iter, ast.Name) \
            and node.iter.id in parameters:
        new = copy.deepcopy(node)
        new.iter = ast.Subscript(value=copy.deepcopy(node.iter),
                                 slice=ast.Slice(upper=ast.Constant(-1)), ctx=ast.Load())
        yield new, f"iteration over `{node.iter.id}` drops its last element"
    elif (_call_to(node, "range") and isinstance(node, ast.Call) and len(node.args) == 1
          and _call_to(node.args[0], "len")):
        call = copy.deepcopy(node)
        call.args[0] = _plus(node.args[0], -1)
        yield call, f"`{_text(node)}` → `{_text(call)}`"


@_operator("comparison-strictness")
def comparison_strictness(node: ast.AST, parameters: frozenset[str]) -> Iterator[Replacement]:
    """``<`` ↔ ``<=`` and ``>`` ↔ ``>=`` (the mutation engine's ``boundary`` operator)."""
    yield from OPERATORS["boundary"](node)


@_operator("int-float-division")
def int_float_division(node: ast.AST, parameters: frozenset[str]) -> Iterator[Replacement]:
    """True division for floor division and back: ``/`` ↔ ``//`` (also ``/=`` ↔ ``//=``)."""
    if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, (ast.Div,
                                                                             ast.FloorDiv)):
        new = copy.deepcopy(node)
        new.op = ast.FloorDiv() if isinstance(node.op, ast.Div) else ast.Div()
        yield new, f"`{_text(node)}` → `{_text(new)}`"


def _is_emptiness_test(test: ast.expr) -> bool:
    """``not x``, ``len(x) == 0``, ``len(x) < 1``, ``x == ""``/``[]``/``()``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return isinstance(test.operand, ast.Name)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if _call_to(left, "len") and isinstance(right, ast.Constant):
        return ((isinstance(op, ast.Eq) and right.value == 0)
                or (isinstance(op, ast.Lt) and right.value == 1))
    empty = (isinstance(right, ast.Constant) and right.value == "") or (
        isinstance(right, (ast.List, ast.Tuple)) and not right.elts)
    return isinstance(op, ast.Eq) and empty


@_operator("empty-input")
def empty_input(node: ast.AST, parameters: frozenset[str]) -> Iterator[Replacement]:
    """Empty input forgotten: an ``if <empty>: return …`` guard dropped, ``a if <non-empty>
    else b`` always ``a``, ``<empty> or rest`` reduced to ``rest``."""
    if (isinstance(node, ast.If) and not node.orelse and _is_emptiness_test(node.test)
            and isinstance(node.body[-1], ast.Return)):
        yield ast.Pass(), f"guard `if {_text(node.test)}` dropped"
    elif isinstance(node, ast.IfExp):
        if _is_emptiness_test(node.test):
            yield copy.deepcopy(node.orelse), f"`{_text(node)}` → its non-empty branch"
        elif isinstance(node.test, ast.Name):
            yield copy.deepcopy(node.body), f"`{_text(node)}` → its non-empty branch"
    elif (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or)
          and _is_emptiness_test(node.values[0])):
        rest = node.values[1:]
        new = copy.deepcopy(rest[0]) if len(rest) == 1 else ast.BoolOp(
            op=ast.Or(), values=copy.deepcopy(rest))
        yield new, f"`{_text(node.values[0])} or …` dropped"


@_operator("tie-breaking")
def tie_breaking(node: ast.AST, parameters: frozenset[str]) -> Iterator[Replacement]:
    """Ties resolved the other way: ``max``/``min``/``sorted`` with a ``key`` see their input
    reversed, so the last of equal keys wins (or comes first)."""
    if (_call_to(node, "max", "min", "sorted") and isinstance(node, ast.Call) and node.args
            and any(k.arg == "key" for k in node.keywords) and len(node.args) == 1):
        new = copy.deepcopy(node)
        listed = ast.Call(func=ast.Name("list", ast.Load()), args=[node.args[0]], keywords=[])
        new.args[0] = ast.Call(func=ast.Name("reversed", ast.Load()), args=[
            copy.deepcopy(listed)], keywords=[])
        yield new, f"`{_text(node)}`: ties broken the other way"


@_operator("unsorted-input")
def unsorted_input(node: ast.AST, parameters: frozenset[str]) -> Iterator[Replacement]:
    """The input is assumed sorted already: ``sorted(x)`` → ``x``, ``x.sort()`` dropped."""
    if _call_to(node, "sorted") and isinstance(node, ast.Call) and node.args:
        yield copy.deepcopy(node.args[0]), f"`{_text(node)}` → `{_text(node.args[0])}`"
    elif (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
          and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "sort"):
        yield ast.Pass(), f"`{_text(node)}` dropped"


_CASING = ("lower", "upper", "casefold")


@_operator("case-sensitivity")
def case_sensitivity(node: ast.AST, parameters: frozenset[str]) -> Iterator[Replacement]:
    """Case folding forgotten: ``s.lower()`` (``upper``, ``casefold``) → ``s``, and
    ``map(str.lower, s)`` → ``s``."""
    if not isinstance(node, ast.Call):
        return
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in _CASING and not node.args:
        yield copy.deepcopy(func.value), f"`{_text(node)}` → `{_text(func.value)}`"
    elif (_call_to(node, "map") and len(node.args) == 2
          and isinstance(node.args[0], ast.Attribute) and node.args[0].attr in _CASING):
        yield copy.deepcopy(node.args[1]), f"`{_text(node)}` → `{_text(node.args[1])}`"


@_operator("sign-handling")
def sign_handling(node: ast.AST, parameters: frozenset[str]) -> Iterator[Replacement]:
    """Signs ignored: ``abs(x)`` → ``x``, ``-x`` → ``x`` (for a non-literal ``x``)."""
    if _call_to(node, "abs") and isinstance(node, ast.Call) and len(node.args) == 1:
        yield copy.deepcopy(node.args[0]), f"`{_text(node)}` → `{_text(node.args[0])}`"
    elif (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
          and not isinstance(node.operand, ast.Constant)):
        yield copy.deepcopy(node.operand), f"`{_text(node)}` → `{_text(node.operand)}`"


def _wrong_start(value: ast.expr) -> ast.expr | None:
    """The wrong initial value for ``value``: 0 ↔ 1, an infinity → 0 (else ``None``)."""
    if isinstance(value, ast.Constant) and type(value.value) is int and value.value in (0, 1):
        return ast.Constant(1 - value.value)
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub):
        value = value.operand
    if (_call_to(value, "float") and isinstance(value, ast.Call) and value.args
            and isinstance(value.args[0], ast.Constant)
            and str(value.args[0].value).lstrip("+-").lower() in ("inf", "infinity")):
        return ast.Constant(0)
    return None


@_operator("initial-value")
def initial_value(node: ast.AST, parameters: frozenset[str]) -> Iterator[Replacement]:
    """A wrong start for an accumulator: ``total = 0`` → ``total = 1`` (and back), ``best =
    float('inf')`` → ``best = 0``; also in tuple assignments ``a, b = 0, 1``."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
        return
    target, value = node.targets[0], node.value
    if isinstance(target, ast.Name):
        wrong = _wrong_start(value)
        if wrong is not None:
            new = copy.deepcopy(node)
            new.value = wrong
            yield new, f"`{_text(node)}` → `{_text(new)}`"
    elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
        starts = [_wrong_start(v) for v in value.elts]
        if any(s is not None for s in starts):
            new = copy.deepcopy(node)
            assert isinstance(new.value, ast.Tuple)
            new.value.elts = [s if s is not None else v for s, v in zip(starts, new.value.elts)]
            yield new, f"`{_text(node)}` → `{_text(new)}`"


@_operator("whitespace-split")
def whitespace_split(node: ast.AST, parameters: frozenset[str]) -> Iterator[Replacement]:
    """Whitespace runs mishandled: ``s.split()`` ↔ ``s.split(" ")``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "split" and not node.keywords):
        return
    new = copy.deepcopy(node)
    if not node.args:
        new.args = [ast.Constant(" ")]
    elif len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and node.args[0].value == " ":
        new.args = []
    else:
        return
    yield new, f"`{_text(node)}` → `{_text(new)}`"


def bundled_catalogue() -> Traversable:
    """The catalogue of common-mode failures shipped inside the package."""
    return files("pytest_req2rank.nversion").joinpath(CATALOGUE_FILE)


def load_common_modes(path: str | Path | Traversable | None = None) -> tuple[CommonModeFailure, ...]:
    """Every common-mode failure of the catalogue (default: :func:`bundled_catalogue`), in its
    order; raises :class:`LibraryError` (one ``file: field: reason`` line per mistake) when an
    entry is malformed, names an unknown family, or a kind has no transformation (or a
    transformation no entry)."""
    source: Traversable = (bundled_catalogue() if path is None
                           else Path(path) if isinstance(path, str) else path)
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as exc:
        raise LibraryError([f"{source}: <toml>: {exc}"]) from exc
    entries = data.get("failures")
    if not isinstance(entries, list):
        raise LibraryError([f"{source}: failures: missing, or not an array of tables"])
    errors: list[str] = []
    failures: list[CommonModeFailure] = []
    for index, entry in enumerate(entries):
        failure, found = _entry(entry, f"{source}: failures[{index}]")
        errors += found
        if failure is not None:
            failures.append(failure)
    kinds = [f.kind for f in failures]
    errors += [f"{source}: failures: kind {k!r} is listed twice" for k in sorted(set(kinds))
               if kinds.count(k) > 1]
    if not errors:
        errors += [f"{source}: failures: kind {k!r} has a transformation but no entry"
                   for k in _OPERATORS if k not in kinds]
    if errors:
        raise LibraryError(errors)
    return tuple(failures)


def _entry(entry: object, where: str) -> tuple[CommonModeFailure | None, list[str]]:
    if not isinstance(entry, dict):
        return None, [f"{where}: must be a table"]
    errors = [f"{where}.{key}: unknown field" for key in entry
              if key not in ("kind", "title", "description", "families")]
    for key in ("kind", "title", "description"):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            errors.append(f"{where}.{key}: missing or not a non-empty string")
    families = entry.get("families")
    if not isinstance(families, list) or not families:
        errors.append(f"{where}.families: missing or not a non-empty list")
    else:
        errors += [f"{where}.families: {f!r} is not one of {', '.join(FAMILIES)}"
                   for f in families if f not in FAMILIES]
    kind = entry.get("kind")
    if isinstance(kind, str) and kind and kind not in _OPERATORS:
        errors.append(f"{where}.kind: {kind!r} has no transformation; known: "
                      f"{', '.join(sorted(_OPERATORS))}")
    if errors or not isinstance(families, list):
        return None, errors
    return CommonModeFailure(kind=entry["kind"], title=entry["title"],
                             description=entry["description"], families=tuple(families),
                             operator=_OPERATORS[entry["kind"]]), []


def for_family(family: str, failures: tuple[CommonModeFailure, ...] | None = None,
               ) -> tuple[CommonModeFailure, ...]:
    """The common-mode failures typical of a task family (catalogue order)."""
    return tuple(f for f in (failures or load_common_modes()) if family in f.families)
