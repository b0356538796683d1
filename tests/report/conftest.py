"""The report tests' real runs, made once per test session (under xdist, by the first
worker that needs them, the others waiting on a file lock)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from filelock import FileLock

from .report_runs import Run, make_runs


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """The five runs, made by the first test process that needs them."""
    session = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    base = tmp_path_factory.getbasetemp()
    root = base.parent / f"r2r-report-runs-{session}" if session else base / "r2r-report-runs"
    with FileLock(str(root) + ".lock"):
        index = root / "runs.json"
        if not index.exists():
            made = make_runs(root)
            index.write_text(json.dumps({name: {
                "directory": str(r.directory), "results": str(r.results), "html": str(r.html),
                "stdout": r.stdout} for name, r in made.items()}))
    return {name: Run(name, Path(v["directory"]), Path(v["results"]), Path(v["html"]),
                      v["stdout"]) for name, v in json.loads(index.read_text()).items()}
