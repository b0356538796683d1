"""The Python API's examples (docs/python-api.md, the README) run as written, in a process
that never imports pytest."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "python-api.md"
README = ROOT / "README.md"
NO_PYTEST = "\nimport sys\nassert 'pytest' not in sys.modules, 'the run imported pytest'\n"


def example(path: Path = DOC) -> str:
    found = re.search(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.DOTALL)
    assert found, f"no python example in {path}"
    return found.group(1)


def test_the_documented_example_runs_without_pytest(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", example() + NO_PYTEST], check=False, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    results = next((tmp_path / ".req2rank" / "runs").glob("*/results.json"))
    document = json.loads(results.read_text(encoding="utf-8"))
    assert document["run"]["seed"] == 7 and document["summary"]["items_total"] == 5
    assert {item["status"] for item in document["items"]} == {"success"}
    assert f"results: {results}" in done.stdout
    assert done.stdout.startswith(f"req2rank: run {document['run']['id']} | seed 7")


def test_the_readmes_example_runs_without_pytest(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", example(README) + NO_PYTEST], check=False,
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    results = next((tmp_path / ".req2rank" / "runs").glob("*/results.json"))
    document = json.loads(results.read_text(encoding="utf-8"))
    assert document["summary"]["items_total"] == 5
    assert done.stdout.split() == [str(document["summary"]["overall_score"]),
                                   str(results.relative_to(tmp_path))]
