"""Running the analysers on an item's Python files: ruff, bandit and radon, plus AST counts.

Files are written to a fresh temporary directory (never the checkout); ruff
runs once per item as a subprocess (``--isolated``: a configuration file among
the answer's files is ignored; ``--ignore-noqa``: so is ``# noqa``), bandit
once per item through its Python API (``# nosec`` ignored), radon in-process.
Files that do not parse are not handed to the analysers: they are recorded as
syntax errors. Non-Python files and paths escaping the directory are skipped.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from radon.complexity import cc_visit_ast
from radon.metrics import mi_visit
from radon.raw import analyze
from radon.visitors import Function

from ..errors import Req2RankError
from ..sandbox import PathEscape, check_path

RUFF_TIMEOUT_S = 60.0
RUFF_LINE_LENGTH = 100
DOCSTRING_RULES = frozenset({"D100", "D101", "D102", "D103"})
TYPE_HINT_RULES = frozenset(
    {"ANN001", "ANN002", "ANN003", "ANN201", "ANN202", "ANN204", "ANN205", "ANN206"}
)
ERROR_HANDLING_RULES = frozenset({"E722", "BLE001", "B904", "TRY002", "S110", "S112"})
STRUCTURE_RULES = frozenset({"PLR0911", "PLR0912", "PLR0913", "PLR0915"})
QUALITY_RULES = ("E", "W", "F", "B", "SIM", "N", "C4", "RET", "PIE")
"""Rule families whose findings (other than the engineering rules above) measure code quality."""
BANDIT_ERROR_HANDLING_TESTS = frozenset({"B110", "B112"})
"""Try-except-pass/continue: scored under engineering (ruff S110/S112), not security."""
BANDIT_ASSERT_TEST = "B101"
"""``assert`` is the point of a test file; only flagged outside tests."""

_BANDIT_LOCK = threading.Lock()


class AnalysisError(Req2RankError, RuntimeError):
    """An analyser could not run (missing, crashed, timed out); not the code's fault."""


@dataclass(frozen=True)
class Finding:
    """One analyser finding; ``severity`` and ``confidence`` are bandit's (LOW, MEDIUM, HIGH)."""

    tool: str
    code: str
    message: str
    path: str
    line: int
    severity: str = ""
    confidence: str = ""


@dataclass(frozen=True)
class SourceFacts:
    """What parsing and radon say about one Python file."""

    path: str
    sloc: int
    syntax_error: str | None = None
    maintainability: float | None = None
    complexities: tuple[int, ...] = ()
    docstring_slots: int = 0
    annotation_slots: int = 0


@dataclass(frozen=True)
class Analysis:
    """Every analyser's view of one item's Python code; ``skipped`` lists the files not analysed."""

    sources: tuple[SourceFacts, ...] = ()
    ruff: tuple[Finding, ...] = ()
    bandit: tuple[Finding, ...] = ()
    skipped: tuple[str, ...] = ()

    @property
    def sloc(self) -> int:
        return sum(s.sloc for s in self.sources)

    @property
    def parsed(self) -> tuple[SourceFacts, ...]:
        return tuple(s for s in self.sources if s.syntax_error is None)

    @property
    def parsed_sloc(self) -> int:
        return sum(s.sloc for s in self.parsed)

    def ruff_codes(self, codes: frozenset[str]) -> list[Finding]:
        return [f for f in self.ruff if f.code in codes]


def analyse(files: Mapping[str, str]) -> Analysis:
    """Analyse the ``.py`` files of ``files``; :class:`AnalysisError` when ruff cannot run."""
    python: dict[str, str] = {}
    skipped: list[str] = []
    for name, text in files.items():
        try:
            path = check_path(name)
        except PathEscape:
            skipped.append(name)
            continue
        if path.endswith(".py"):
            python[path] = text
        else:
            skipped.append(name)
    sources = tuple(_facts(path, text) for path, text in sorted(python.items()))
    parsed = [s.path for s in sources if s.syntax_error is None]
    if not parsed:
        return Analysis(sources=sources, skipped=tuple(skipped))
    with tempfile.TemporaryDirectory(prefix="r2r-judge-") as tmp:
        root = Path(tmp)
        for path in parsed:
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(python[path], encoding="utf-8")
        ruff = _run_ruff(root, parsed)
        bandit = _run_bandit(root, parsed)
    return Analysis(sources=sources, ruff=ruff, bandit=bandit, skipped=tuple(skipped))


def _facts(path: str, text: str) -> SourceFacts:
    try:
        tree = ast.parse(text, filename=path)
        return SourceFacts(
            path=path,
            sloc=analyze(text).sloc,
            maintainability=float(mi_visit(text, multi=True)),
            complexities=tuple(b.complexity for b in cc_visit_ast(tree) if isinstance(b, Function)),
            docstring_slots=_docstring_slots(path, tree),
            annotation_slots=_annotation_slots(tree),
        )
    except (SyntaxError, ValueError, RecursionError) as exc:
        if isinstance(exc, SyntaxError):
            reason = f"{exc.msg} (line {exc.lineno})" if exc.lineno else exc.msg
        else:
            reason = str(exc) or type(exc).__name__
        return SourceFacts(path=path, sloc=_plain_sloc(text), syntax_error=reason)


def _plain_sloc(text: str) -> int:
    return sum(
        1 for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")
    )


def _public(name: str) -> bool:
    return not name.startswith("_")


def _docstring_slots(path: str, tree: ast.Module) -> int:
    """Where ruff's D100-D103 want a docstring: public module, classes, methods, functions."""
    module = Path(path).name
    slots = int(_public(module) and module != "__init__.py")
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _public(node.name):
            slots += 1
        elif isinstance(node, ast.ClassDef) and _public(node.name):
            slots += 1 + sum(
                isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and _public(item.name)
                for item in node.body
            )
    return slots


def _annotation_slots(tree: ast.Module) -> int:
    """Parameters and return types ruff's ANN rules want hints on (``self``/``cls`` excluded)."""
    methods = {
        id(item)
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        for item in node.body
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    slots = 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        args = node.args
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        count = sum(param is not None for param in params)
        static = any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list
        )
        if id(node) in methods and not static and (args.posonlyargs or args.args):
            count -= 1
        slots += count + 1
    return slots


def _ruff_command() -> list[str]:
    beside = Path(sys.executable).with_name("ruff")
    return [str(beside)] if beside.is_file() else [sys.executable, "-m", "ruff"]


def _run_ruff(root: Path, paths: list[str]) -> tuple[Finding, ...]:
    select = sorted(
        {
            *QUALITY_RULES,
            *DOCSTRING_RULES,
            *TYPE_HINT_RULES,
            *ERROR_HANDLING_RULES,
            *STRUCTURE_RULES,
        }
    )
    command = [
        *_ruff_command(),
        "check",
        "--isolated",
        "--no-cache",
        "--ignore-noqa",
        "--exit-zero",
        "--output-format",
        "json",
        "--target-version",
        "py311",
        "--line-length",
        str(RUFF_LINE_LENGTH),
        "--select",
        ",".join(select),
        "--",
        *paths,
    ]
    try:
        done = subprocess.run(
            command,
            cwd=root,
            capture_output=True,
            text=True,
            timeout=RUFF_TIMEOUT_S,
            check=False,
            env={**os.environ, "NO_COLOR": "1"},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AnalysisError(f"ruff could not run: {exc}") from exc
    try:
        rows = json.loads(done.stdout)
    except json.JSONDecodeError:
        detail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise AnalysisError(f"ruff failed (exit {done.returncode}): {detail}") from None
    return tuple(
        Finding(
            tool="ruff",
            code=row.get("code") or "invalid-syntax",
            message=row["message"],
            path=_relative(row["filename"], root),
            line=(row.get("location") or {}).get("row", 0),
        )
        for row in rows
    )


@lru_cache(maxsize=1)
def _bandit() -> tuple[ModuleType, ModuleType]:
    with warnings.catch_warnings():
        # On import, bandit 1.9 passes stevedore an argument it has deprecated.
        warnings.simplefilter("ignore", DeprecationWarning)
        from bandit.core import config, manager  # on first use, under the filter above
    return config, manager


def _run_bandit(root: Path, paths: list[str]) -> tuple[Finding, ...]:
    with _BANDIT_LOCK:
        config, manager = _bandit()
        bandit = manager.BanditManager(config.BanditConfig(), "file", ignore_nosec=True, quiet=True)
        bandit.discover_files([str(root / path) for path in paths], recursive=False)
        bandit.run_tests()
        issues = bandit.get_issue_list()
    findings = []
    for issue in issues:
        path = _relative(issue.fname, root)
        if issue.test_id in BANDIT_ERROR_HANDLING_TESTS:
            continue
        if issue.test_id == BANDIT_ASSERT_TEST and _is_test_file(path):
            continue
        findings.append(
            Finding(
                tool="bandit",
                code=issue.test_id,
                message=issue.text,
                path=path,
                line=issue.lineno,
                severity=str(issue.severity),
                confidence=str(issue.confidence),
            )
        )
    return tuple(findings)


def _relative(filename: str, root: Path) -> str:
    try:
        return Path(filename).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return filename


def _is_test_file(path: str) -> bool:
    parts = Path(path).parts
    name = parts[-1]
    return name.startswith("test_") or name.endswith("_test.py") or "tests" in parts[:-1]
