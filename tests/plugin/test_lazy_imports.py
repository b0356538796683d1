"""A static-suite process loads only what it uses: workers start sooner (see docs/performance.md)."""

from __future__ import annotations

import subprocess
import sys

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
