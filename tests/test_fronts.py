"""A package's front (its ``__init__``) exports what other packages, other packages' tests or
the docs use; what only the package and its own tests use stays in the module that defines
it, so the front reads as the package's surface."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pytest_req2rank"
# every package with a front; the plugin's is pytest's entry point (its hooks), imported by no
# other package
PACKAGES = ("models", "suites", "scoring", "judging", "mutation", "plan", "generation", "nversion",
            "execution", "hub", "cli", "evidence", "run", "settings", "submit", "providers", "report",
            "sandbox", "store", "sandboxed")


def _exported(package: str) -> list[str]:
    tree = ast.parse((PACKAGE / package / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets):
            assert isinstance(node.value, ast.List | ast.Tuple)
            return [element.value for element in node.value.elts
                    if isinstance(element, ast.Constant) and isinstance(element.value, str)]
    return []


@cache
def _words() -> dict[Path, frozenset[str]]:
    """The words of every source, test and page, per file."""
    files = [*PACKAGE.rglob("*.py"), *(ROOT / "tests").rglob("*.py"),
             *(ROOT / "benchmarks").rglob("*.py"), *(ROOT / "docs").glob("*.md"),
             ROOT / "README.md", ROOT / "ARCHITECTURE.md"]
    return {path: frozenset(re.findall(r"\w+", path.read_text(encoding="utf-8"))) for path in files}


def _used_outside(package: str) -> set[str]:
    inside = (PACKAGE / package, ROOT / "tests" / package)
    return {word for path, words in _words().items()
            if not any(path.is_relative_to(folder) for folder in inside) for word in words}


@pytest.mark.parametrize("package", PACKAGES)
def test_the_front_exports_only_what_is_used_outside_the_package(package: str) -> None:
    exported = _exported(package)
    assert exported, f"{package}/__init__.py has no __all__"
    used = _used_outside(package)
    unused = [name for name in exported if name not in used]
    assert unused == [], (f"pytest_req2rank.{package} exports names that only the package and its "
                          f"tests use; import them from their module instead: {unused}")
