"""A static-suite process loads only what it uses: workers start sooner (see docs/performance.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HEAVY = ("asyncio", "numpy", "jsonschema", "jsonschema_rs", "sqlite_utils", "litellm",
         "pytest_req2rank.generation", "pytest_req2rank.judging", "pytest_req2rank.scoring",
         "pytest_req2rank.report", "pytest_req2rank.store")


def loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    return set(done.stdout.split())


def test_the_plugin_and_a_static_worker_load_no_heavy_module() -> None:
    loaded = loaded_after(
        "import pytest_req2rank.plugin, pytest_req2rank.plugin._start\n"
        "from pytest_req2rank.execution import run_task\n"
        "from pytest_req2rank.suites import load_humaneval\n"
        "load_humaneval()"
    )
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_grading_a_requirement_needs_no_generator() -> None:
    """The requirement types live in models: execution sits below generation."""
    loaded = loaded_after("from pytest_req2rank.execution import run_requirement")
    assert "pytest_req2rank.execution._requirement" in loaded
    assert "pytest_req2rank.generation" not in loaded


def test_opening_a_static_run_loads_no_n_version_library(tmp_path: Path) -> None:
    """The controller writes its header before the workers start: a HumanEval run's header
    has nothing of N-version programming to say, so it loads none of it (numpy, tree-sitter)."""
    loaded = loaded_after(
        "from pytest_req2rank.models import SuiteSpec\n"
        "from pytest_req2rank.run import Run\n"
        "from pytest_req2rank.settings import Settings\n"
        f"settings = Settings(suite=SuiteSpec.parse('humaneval'), sample=2, dir={str(tmp_path)!r})\n"
        "with Run.open(settings) as run:\n"
        "    assert run.header()\n"
    )
    assert "pytest_req2rank.run._header" in loaded
    assert "pytest_req2rank.nversion" not in loaded
