"""What each pytest process of a benchmark run imports before its first item, and what it costs.

Runs a benchmark command (default: the offline ``pytest benchmarks --r2r-suite=humaneval
-n 2``) with ``-X importtime`` in every process, each process's import log kept in its own
file, and a probe plugin that marks the first item of each process. Prints, per process
(controller, gw0, gw1, ...): the CPU time and the wall time from the interpreter's start to
its first item, the import time before it (the sum of the top-level imports' cumulative
times), and the heaviest top-level imports; then, with ``--rounds N``, the medians over N
runs of each role's figures.

Nothing is asserted.

    python tests/perf/bench_worker_imports.py [--rounds N] [--top N] [-- PYTEST ARGS...]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_ARGS = ("benchmarks", "--r2r-suite=humaneval", "-n", "2", "-p", "no:cacheprovider", "-q")
MARK = "r2r-first-item"
LOG_DIR_ENV = "R2R_IMPORT_LOG_DIR"

SITECUSTOMIZE = f'''"""Each process's -X importtime log to its own file (it writes to fd 2)."""
import os, time
STARTED = time.perf_counter()
_dir = os.environ.get("{LOG_DIR_ENV}")
if _dir:
    _fd = os.open(os.path.join(_dir, f"{{os.getpid()}}.log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    os.dup2(_fd, 2)
    os.close(_fd)
'''

PROBE = f'''"""Marks the first item of a process in its import log, with its role and times."""
import os, sys, time
import pytest

_seen = []


def _mark(role):
    if _seen:
        return
    _seen.append(True)
    import sitecustomize
    wall = time.perf_counter() - sitecustomize.STARTED
    os.write(2, f"{MARK} {{role}} {{time.process_time():.3f}} {{wall:.3f}}\\n".encode())


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    _mark(os.environ.get("PYTEST_XDIST_WORKER", "controller"))


def pytest_runtest_logreport(report):
    if "PYTEST_XDIST_WORKER" not in os.environ:  # the controller's first result
        _mark("controller")
'''

LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)$")


@dataclass(frozen=True)
class Process:
    role: str
    cpu_s: float
    wall_s: float
    import_s: float
    top: list[tuple[float, str]]


def parse(log: str) -> Process | None:
    """The figures of one process's log up to its first-item mark (None: it ran no item)."""
    heads: list[tuple[float, str]] = []
    for line in log.splitlines():
        if line.startswith(MARK):
            _, role, cpu, wall = line.split()
            total = sum(seconds for seconds, _ in heads)
            return Process(role, float(cpu), float(wall), total, sorted(heads, reverse=True))
        found = LINE.match(line)
        if found and len(found.group(3)) == 1:
            heads.append((int(found.group(2)) / 1e6, found.group(4)))
    return None


def run(argv: list[str], probe_dir: Path, top: int) -> dict[str, Process]:
    with tempfile.TemporaryDirectory(prefix="r2r-imports-") as logs, \
            tempfile.TemporaryDirectory(prefix="r2r-imports-run-") as work:
        env = {**os.environ, LOG_DIR_ENV: logs, "PYTHONPROFILEIMPORTTIME": "1",
               "PYTHONPATH": os.pathsep.join(filter(None, (str(probe_dir),
                                                           os.environ.get("PYTHONPATH"))))}
        done = subprocess.run([sys.executable, "-m", "pytest", "-p", "r2r_import_probe",
                               "--r2r-dir", work, *argv], cwd=ROOT, env=env,
                              capture_output=True, text=True, check=False)
        print(f"exit {done.returncode}: {(done.stdout.strip().splitlines() or [''])[-1]}")
        found = {}
        for path in Path(logs).glob("*.log"):
            process = parse(path.read_text(encoding="utf-8", errors="replace"))
            if process is not None:
                found[process.role] = process
    for role in sorted(found):
        process = found[role]
        heaviest = ", ".join(f"{name} {seconds:.2f}" for seconds, name in process.top[:top])
        print(f"  {role:10} cpu {process.cpu_s:5.2f} s  wall {process.wall_s:5.2f} s  "
              f"imports {process.import_s:5.2f} s  | {heaviest}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--top", type=int, default=8, help="Heaviest top-level imports shown")
    parser.add_argument("pytest_args", nargs="*", default=list(DEFAULT_ARGS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="r2r-imports-probe-") as probe_dir:
        Path(probe_dir, "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
        Path(probe_dir, "r2r_import_probe.py").write_text(PROBE, encoding="utf-8")
        rounds = [run(args.pytest_args, Path(probe_dir), args.top) for _ in range(args.rounds)]
    if args.rounds > 1:
        print(f"medians of {args.rounds}:")
        for role in sorted({role for found in rounds for role in found}):
            seen = [found[role] for found in rounds if role in found]
            print(f"  {role:10} cpu {statistics.median(p.cpu_s for p in seen):5.2f} s  "
                  f"wall {statistics.median(p.wall_s for p in seen):5.2f} s  "
                  f"imports {statistics.median(p.import_s for p in seen):5.2f} s")


if __name__ == "__main__":
    main()
