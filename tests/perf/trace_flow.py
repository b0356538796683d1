"""Following one option, or one item, through the code: which files a reader visits.

Runs ``pytest`` in-process (no xdist) on a HumanEval item answered by the scripted fake model
and records, in call order, every function of the package that is called (every thread). A
trace keeps the calls that concern what is followed:

- ``--r2r-concurrency`` (``concurrency``) and ``--r2r-samples-per-task``
  (``samples_per_task``, ``samples``): the functions whose code names it (an attribute, a
  parameter or a variable);
- ``item``: every call from the moment the benchmark item is collected to its final status
  being recorded.

Printed per trace: the files in the order visited (consecutive calls in one file count once),
how many distinct files and packages, and the returns (visits to a file already left).

Module bodies (imports) are left out: they run once, whatever is followed.

    python tests/perf/trace_flow.py OUT.json [ROOT]   # ROOT: the checkout (default: this one)
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
from pathlib import Path
from types import FrameType
from typing import Any

OUT = Path(sys.argv[1]).resolve()
ROOT = Path(sys.argv[2] if len(sys.argv) > 2 else Path(__file__).resolve().parents[2]).resolve()
PACKAGE = ROOT / "pytest_req2rank"
OPTIONS = {"concurrency": {"concurrency"}, "samples-per-task": {"samples_per_task", "samples"}}
ANSWER = "```python\ndef has_close_elements(numbers, threshold):\n    return False\n```"


def main() -> None:
    sys.path.insert(0, str(ROOT))
    import pytest

    from pytest_req2rank.providers.fake import write_fake_script

    calls: list[tuple[str, str, frozenset[str]]] = []
    lock = threading.Lock()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        path = frame.f_code.co_filename
        if path.startswith(str(PACKAGE)) and frame.f_code.co_name != "<module>":
            code = frame.f_code
            names = frozenset(code.co_names) | frozenset(code.co_varnames)
            with lock:
                calls.append((path, code.co_name, names))

    with tempfile.TemporaryDirectory() as work:
        env = write_fake_script(Path(work) / "script.json",
                                {"models": {"coder": [{"responses": [{"text": ANSWER}]}]}})
        os.environ.update(env)
        os.chdir(work)
        threading.setprofile(profile)
        sys.setprofile(profile)
        try:
            pytest.main(["-p", "no:xdist", "-p", "no:cacheprovider", "-q",
                         "--r2r-suite=humaneval", "--r2r-sample=1", "--r2r-seed=1",
                         "--r2r-model=fake/coder", "--r2r-concurrency=2",
                         "--r2r-samples-per-task=2", "--r2r-dir=out"])
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
    traces = {f"--r2r-{option}": [path for path, _, names in calls if names & wanted]
              for option, wanted in OPTIONS.items()}
    start = next(i for i, (_, name, _) in enumerate(calls) if name == "pytest_generate_tests")
    end = next(i for i, (path, name, _) in enumerate(calls)
               if name == "record" and i > start)  # the first item's result kept
    traces["one HumanEval item"] = [path for path, _, _ in calls[start:end + 1]]
    OUT.write_text(json.dumps({name: summary(paths) for name, paths in traces.items()},
                              indent=1))


def summary(paths: list[str]) -> dict[str, Any]:
    visits = [Path(p).relative_to(PACKAGE).as_posix() for p in paths]
    order: list[str] = []
    for visit in visits:
        if not order or order[-1] != visit:
            order.append(visit)
    files = set(order)
    packages = {f.split("/")[0] if "/" in f else f for f in files}
    return {"files": len(files), "packages": len(packages), "returns": len(order) - len(files),
            "visits": len(order), "order": order}


if __name__ == "__main__":
    main()
