"""A Ctrl-C may land anywhere once a run's items run, also inside an import: the summary an
interrupted run still writes must not depend on a module the interrupt tore."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# A Ctrl-C raised inside the imports of the run's first record: right after the
# ``tear_at``-th module this process's main thread loads once items run (a signal reaches
# only the main thread), as a real one lands in the middle of a package whose __init__ is
# half run (numpy's then cannot be imported again).
TORN_RUN = """
import builtins, json, sys, threading
from pathlib import Path
from pytest_req2rank.models import SuiteSpec
from pytest_req2rank.run import Run
from pytest_req2rank.settings import Settings

tear_at, out = int(sys.argv[1]), Path(sys.argv[2])
settings = Settings(suite=SuiteSpec.parse("humaneval"), sample=2, seed=3, dir=out)
real_import = builtins.__import__
torn, seen = [], []

def tearing_import(name, globals=None, locals=None, fromlist=(), level=0):
    known = len(sys.modules)
    module = real_import(name, globals, locals, fromlist, level)
    if threading.current_thread() is not threading.main_thread():
        return module
    if not torn and len(sys.modules) > known:
        seen.extend(sorted(set(sys.modules) - loaded))
        loaded.update(sys.modules)
        if len(seen) >= tear_at:
            torn.append(seen[-1])
            raise KeyboardInterrupt
    return module

with Run.open(settings, preflight=False) as run:
    first, second = run.item_ids
    result = run.evaluate(first)
    loaded = set(sys.modules)
    builtins.__import__ = tearing_import
    try:
        run.record(result)
        run.record(run.evaluate(second))
    except KeyboardInterrupt:
        pass
    builtins.__import__ = real_import
    document = run.finish(interrupted=True)
print(json.dumps({"torn": torn, "items": len(document.items) if document else 0,
                  "written": run.paths.results.exists()}))
"""


@pytest.mark.parametrize("tear_at", [1, 10, 25, 40, 55, 80, 120])
def test_a_ctrl_c_inside_an_import_during_the_run_still_leaves_its_summary(
        tmp_path: Path, tear_at: int) -> None:
    done = subprocess.run([sys.executable, "-c", TORN_RUN, str(tear_at), str(tmp_path)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    outcome = json.loads(done.stdout.splitlines()[-1])
    assert outcome["written"] and outcome["items"] == (1 if outcome["torn"] else 2), outcome
