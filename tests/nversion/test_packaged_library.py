"""The implementation library, the common-mode catalogue and the generation pipeline's
knowledge base ship inside the package: the tree
setuptools' ``build_py`` lays out for a wheel holds them, and they load from it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from pytest_req2rank.nversion._library import bundled_library

PROJECT = Path(__file__).resolve().parents[2]


def test_the_built_package_loads_the_library_and_catalogue(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(PROJECT / name, source)
    shutil.copytree(PROJECT / "pytest_req2rank", source / "pytest_req2rank",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    lib = tmp_path / "lib"
    subprocess.run([sys.executable, "-c", "from setuptools import setup; setup()", "-q",
                    "build_py", "--build-lib", str(lib)],
                   cwd=source, check=True, capture_output=True, timeout=120)
    shipped = sorted(e.name for e in bundled_library().iterdir() if e.name.endswith(".toml"))
    built = lib / "pytest_req2rank" / "nversion"
    assert sorted(p.name for p in (built / "library").glob("*.toml")) == shipped
    driver = ("import pytest_req2rank.nversion as n\n"
              "from pytest_req2rank.nversion._knowledge import load_knowledge\n"
              f"assert n.__file__.startswith({str(lib)!r}), n.__file__\n"
              "print(len(n.load_library()), len(n.load_common_modes()),"
              " len(load_knowledge().families))\n")
    out = subprocess.run([sys.executable, "-c", driver], cwd=tmp_path, check=True,
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(lib)})
    assert out.stdout.split() == [str(len(shipped)), "11", "9"]
    assert len(list((built / "knowledge").glob("*.toml"))) == 9
