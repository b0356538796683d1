"""The offline library of diverse implementations: TOML files → checks → :class:`LibraryTask`.

One file per task (``library/HumanEval-0.toml`` holds ``HumanEval/0``), each with at least
:data:`MIN_IMPLEMENTATIONS` correct, algorithmically distinct implementations of the task's
function. A HumanEval task's definition is HumanEval's; a requirement task
(``Requirement/<template>``, derived from a dynamic-suite requirement template) carries its
own: ``prompt``, ``reference`` and ``test`` (a HumanEval-form ``check(candidate)``), which
:func:`requirement_tasks` turns into function-form tasks. Errors are one
``file: field: reason`` line each, like the template loader's.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import re
import sys
import tomllib
from collections.abc import Iterable
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, ValidationError

from ..errors import ConfigurationError
from ..models import ItemId, Task

LIBRARY_VERSION = 1
"""The library's format and content version; every file carries it as ``version``."""
MIN_IMPLEMENTATIONS = 3
"""Fewest implementations a task of the library may have."""
FAMILIES = (
    "arithmetic", "number-theory", "string-processing", "parsing",
    "list-search", "list-transform", "sorting", "recurrence",
)
"""The task families; the common-mode failure library is organised by them."""
LIBRARY_FOLDER = "library"
SUFFIX = ".toml"
_SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_TASK_ID = re.compile(r"^(HumanEval/\d+|Requirement/[a-z0-9]+(-[a-z0-9]+)*)$")
REQUIREMENT_PREFIX = "Requirement/"
"""The task-id prefix of the library's own tasks, derived from requirement templates."""
REQUIREMENT_DATASET = "requirement"
"""The dataset of the library's own tasks before they become N-version items."""
_FROZEN = ConfigDict(frozen=True, extra="forbid")
_BUILTINS = frozenset(dir(builtins))


class LibraryError(ConfigurationError, ValueError):
    """One or more library files are wrong; ``errors`` holds one ``file: field: reason`` line each."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors = errors


class Implementation(BaseModel):
    """One version of a task: a complete function definition (standard library only)."""

    model_config = _FROZEN

    name: StrictStr
    paradigm: StrictStr
    data_structure: StrictStr
    code: StrictStr


class LibraryTask(BaseModel):
    """A task of the library with its diverse implementations."""

    model_config = _FROZEN

    version: StrictInt
    task_id: StrictStr
    entry_point: StrictStr
    family: StrictStr
    implementations: tuple[Implementation, ...]
    template: StrictStr | None = None
    prompt: StrictStr | None = None
    reference: StrictStr | None = None
    test: StrictStr | None = None
    path: str = ""

    @property
    def is_requirement(self) -> bool:
        """Whether the library carries this task's definition (a requirement task)."""
        return self.task_id.startswith(REQUIREMENT_PREFIX)


def bundled_library() -> Traversable:
    """The implementation library shipped inside the package."""
    return files("pytest_req2rank.nversion").joinpath(LIBRARY_FOLDER)


def file_name(task_id: str) -> str:
    """The library file of ``task_id`` (``HumanEval/0`` → ``HumanEval-0.toml``)."""
    return task_id.replace("/", "-") + SUFFIX


def load_library(directory: str | Path | Traversable | None = None) -> tuple[LibraryTask, ...]:
    """Every task of a library directory (default: :func:`bundled_library`), in task order;
    raises one :class:`LibraryError` listing every mistake of every file."""
    folder: Traversable = (bundled_library() if directory is None
                           else Path(directory) if isinstance(directory, str) else directory)
    entries = sorted((e for e in folder.iterdir() if e.name.endswith(SUFFIX)), key=lambda e: e.name)
    tasks: list[LibraryTask] = []
    errors: list[str] = []
    for entry in entries:
        task, found = _parse(entry)
        errors += found
        if task is not None:
            tasks.append(task)
    if not tasks and not errors:
        errors.append(f"{folder}: <library>: no {SUFFIX} file found")
    if errors:
        raise LibraryError(errors)
    return tuple(sorted(tasks, key=_order))


def requirement_tasks(library: Iterable[LibraryTask]) -> list[Task]:
    """The library's own requirement tasks as function-form tasks, in library order."""
    return [Task(item_id=str(ItemId.of_task(REQUIREMENT_DATASET, entry.task_id)),
                 dataset=REQUIREMENT_DATASET, task_id=entry.task_id, form="function",
                 prompt=entry.prompt or "", reference=entry.reference or "",
                 entry_point=entry.entry_point, test=entry.test,
                 source=f"nversion-library:{Path(entry.path).name}")
            for entry in library if entry.is_requirement]


def check_library_file(path: str | Path) -> list[str]:
    """Every mistake in one library file, as ``file: field: reason`` lines (empty when valid)."""
    return _parse(Path(path))[1]


def _order(task: LibraryTask) -> tuple[str, int, str]:
    prefix, _, rest = task.task_id.partition("/")
    return (prefix, int(rest), "") if rest.isdigit() else (prefix, 0, rest)


def _parse(path: Traversable) -> tuple[LibraryTask | None, list[str]]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        return None, [f"{path}: <toml>: {exc}"]
    except (OSError, UnicodeDecodeError) as exc:
        return None, [f"{path}: <file>: cannot be read ({exc})"]
    try:
        task = LibraryTask.model_validate({**data, "path": str(path)})
    except ValidationError as exc:
        return None, [f"{path}: {_where(e['loc'])}: {e['msg']}" for e in exc.errors()]
    findings = _task_errors(task, path.name)
    if findings:
        return None, [f"{path}: {where}: {reason}" for where, reason in findings]
    return task, []


def _where(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "<file>"


def _task_errors(task: LibraryTask, name: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    if task.version != LIBRARY_VERSION:
        found.append(("version", f"{task.version} is not the library version {LIBRARY_VERSION}"))
    if not _TASK_ID.match(task.task_id):
        found.append(("task_id", (f"{task.task_id!r} is not of the form 'HumanEval/<number>' "
                      "or 'Requirement/<template-id>'")))
    elif name != file_name(task.task_id):
        found.append(("task_id", f"{task.task_id!r} belongs in {file_name(task.task_id)!r}"))
    found += _definition_errors(task)
    if task.family not in FAMILIES:
        found.append(("family", f"{task.family!r} is not one of {', '.join(FAMILIES)}"))
    if len(task.implementations) < MIN_IMPLEMENTATIONS:
        found.append(("implementations", (f"{len(task.implementations)} given, at least "
                      f"{MIN_IMPLEMENTATIONS} needed")))
    seen_names: set[str] = set()
    seen_kinds: set[tuple[str, str]] = set()
    for index, impl in enumerate(task.implementations):
        where = f"implementations[{index}]"
        if not _SLUG.match(impl.name):
            found.append((f"{where}.name", f"{impl.name!r} is not a lower-case-hyphenated slug"))
        elif impl.name in seen_names:
            found.append((f"{where}.name", f"{impl.name!r} is used twice"))
        seen_names.add(impl.name)
        kind = (impl.paradigm.strip().lower(), impl.data_structure.strip().lower())
        if not all(kind):
            found.append((f"{where}.paradigm", "paradigm and data_structure must not be empty"))
        elif kind in seen_kinds:
            found.append((f"{where}.paradigm", (f"paradigm {kind[0]!r} with data structure "
                          f"{kind[1]!r} is used twice")))
        seen_kinds.add(kind)
        found += [(f"{where}.code", reason) for reason in code_errors(impl.code, task.entry_point)]
    return found


def _definition_errors(task: LibraryTask) -> list[tuple[str, str]]:
    """A requirement task must carry its definition; a HumanEval task must not (HumanEval's)."""
    fields = {"template": task.template, "prompt": task.prompt, "reference": task.reference,
              "test": task.test}
    if not task.is_requirement:
        return [(name, ("only a Requirement/... task carries its own definition; HumanEval's "
                 "is used")) for name, value in fields.items() if value is not None]
    found = [(name, "missing: a Requirement/... task carries its own definition")
             for name, value in fields.items() if value is None or not value.strip()]
    if found:
        return found
    assert task.template is not None and task.reference is not None and task.test is not None
    if task.task_id != REQUIREMENT_PREFIX + task.template:
        found.append(("template", (f"{task.template!r} does not match the task id "
                      f"{task.task_id!r} (Requirement/<template-id>)")))
    found += [("reference", reason) for reason in code_errors(task.reference, task.entry_point)]
    found += [("test", reason) for reason in code_errors(task.test, "check")]
    return found


def code_errors(code: str, entry_point: str) -> list[str]:
    """Why ``code`` is not a valid implementation of ``entry_point`` (empty when it is)."""
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return [f"does not parse (line {exc.lineno}: {exc.msg})"]
    errors: list[str] = []
    defined = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    if entry_point not in defined:
        errors.append(f"defines no top-level function {entry_point!r}")
    for node in ast.walk(tree):
        modules = ([a.name for a in node.names] if isinstance(node, ast.Import)
                   else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        for module in modules:
            if module.split(".")[0] not in sys.stdlib_module_names:
                errors.append(f"imports {module!r}, which is not in the standard library")
    return errors


class _Canonical(ast.NodeTransformer):
    """Renames identifiers to ``v0, v1, …`` in order of first use (builtins and imported
    modules keep their names), drops annotations and docstrings."""

    def __init__(self, kept: frozenset[str]) -> None:
        self.kept = kept
        self.names: dict[str, str] = {}

    def _name(self, name: str) -> str:
        if name in self.kept:
            return name
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self._name(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg, node.annotation = self._name(node.arg), None
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name, node.returns = self._name(node.name), None
        if node.body and _is_docstring(node.body[0]) and len(node.body) > 1:
            node.body = node.body[1:]
        self.generic_visit(node)
        return node


def _is_docstring(node: ast.stmt) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


def normalised_ast(code: str) -> str:
    """The AST dump of ``code``'s behaviour: imports dropped, identifiers renamed canonically,
    annotations, docstrings and comments gone, and each top-level function reduced to its
    decorators and body (the signature is the task's, shared by every version). Two renamed
    copies give the same text."""
    tree = ast.parse(code)
    imported = {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    canonical = _Canonical(_BUILTINS | imported)
    parts: list[ast.AST] = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.FunctionDef):
            canonical.visit(node.args)
            parts += [canonical.visit(n) for n in node.decorator_list]
            body = node.body[1:] if _is_docstring(node.body[0]) and len(node.body) > 1 else node.body
            parts += [canonical.visit(n) for n in body]
        else:
            parts.append(canonical.visit(node))
    return "\n".join(ast.dump(part, annotate_fields=False) for part in parts)


def normalised_ast_similarity(a: str, b: str) -> float:
    """Similarity (0–1) of two codes' normalised ASTs (:func:`normalised_ast`): difflib's ratio
    over their dumps split into tokens (node types, canonical identifiers, constants)."""
    tokens_a, tokens_b = (re.findall(r"\w+|[^\w\s]", normalised_ast(c)) for c in (a, b))
    return difflib.SequenceMatcher(None, tokens_a, tokens_b, autojunk=False).ratio()
