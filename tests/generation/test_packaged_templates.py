"""The template library ships inside the package: an install without the checkout (a wheel)
has it, and the default run draws from it.

setuptools' ``build_py`` lays out the files a wheel installs (``bdist_wheel`` zips that
tree), offline and in about a second; the copy is then imported with the checkout out of
reach (another directory, first on ``sys.path``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_req2rank.generation import bundled_library

PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package as a wheel would install it, under ``<tmp>/lib``."""
    root = tmp_path_factory.mktemp("packaging")
    source = root / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(PROJECT / name, source)
    shutil.copytree(PROJECT / "pytest_req2rank", source / "pytest_req2rank",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    lib = root / "lib"
    subprocess.run([sys.executable, "-c", "from setuptools import setup; setup()", "-q",
                    "build_py", "--build-lib", str(lib)],
                   cwd=source, check=True, capture_output=True, timeout=120)
    return lib


def test_the_built_package_holds_every_template_and_the_schema(built: Path) -> None:
    shipped = sorted(entry.name for entry in bundled_library().iterdir()
                     if entry.name.endswith(".toml"))
    generation = built / "pytest_req2rank" / "generation"
    assert len(shipped) >= 8
    assert sorted(p.name for p in (generation / "templates").glob("*.toml")) == shipped
    assert (generation / "template.schema.json").is_file()


def test_an_install_without_the_checkout_runs_the_default_dynamic_suite(
    built: Path, tmp_path: Path
) -> None:
    driver = (
        "import sys, pytest, pytest_req2rank.generation as g\n"
        f"assert g.__file__.startswith({str(built)!r}), g.__file__\n"
        f"assert str(g.bundled_library()).startswith({str(built)!r})\n"
        "print('templates', len(g.load_templates()))\n"
        "sys.exit(pytest.main(['--r2r-rounds=2', '-p', 'no:xdist', '-p', 'no:cacheprovider']))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(built)}
    result = subprocess.run([sys.executable, "-c", driver], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=240, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    count = len(list((built / "pytest_req2rank" / "generation" / "templates").glob("*.toml")))
    assert f"templates {count}\n" in result.stdout
    assert "suite dynamic (2 items)" in result.stdout and "2 passed" in result.stdout
