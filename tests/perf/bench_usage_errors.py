"""How long ``pytest -n 2`` takes to refuse each usage error, next to the cheapest one.

In an unrelated one-test project, each case runs ``pytest -n 2 -q`` with one mistake and
must exit 4 (a usage error) with no xdist worker started (a probe plugin, loaded in every
process, reports a worker's start). Every case runs once a round, in interleaved rounds
(the order rotates), and the script prints for each the medians of its wall time and of
the CPU time of all its processes, and the per-round ratios of each to the baseline
``empty model`` (``--r2r-model=``, refused while the settings are read, before anything
of the run is imported) measured in the same round, as median [min-max].

Each version runs from a copy of its package made when the script starts. With
``--compare REF``, the package as it is at git ``REF`` of this checkout runs every case too, interleaved, and each case gets the per-round ratio of this checkout to REF.

Run it with the interpreter of a plain install (``pip install -e .`` without ``[dev]``,
whose pytest plugins load in every process) to measure what a user waits for. Nothing is
asserted but the exit code and that no worker started.

    python tests/perf/bench_usage_errors.py [--rounds N] [--compare REF] [--cases a,b]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from io import BytesIO
from pathlib import Path

from _timing import machine, run_timed

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "pytest_req2rank"
BASELINE = "empty model"
PROBE = "r2r_usage_probe"
PROBE_SOURCE = '''"""Reports the start of an xdist worker: a usage error must come before any."""
import os


def pytest_configure(config):
    if hasattr(config, "workerinput"):
        with open(os.environ["R2R_BENCH_WORKER_LOG"], "a") as log:
            log.write(config.workerinput["workerid"] + "\\n")
'''


def cases(tmp: Path) -> dict[str, tuple[str, ...]]:
    """Each case's options: one mistake a user makes."""
    blocked = tmp / "not-a-directory"
    blocked.write_text("a file where a directory is expected\n")
    return {
        BASELINE: ("--r2r-model=",),
        "unknown model": ("--r2r-model=nosuch/x",),
        "unknown judge": ("--r2r-judges=nosuch/y",),
        "bad value": ("--r2r-concurrency=abc",),
        "missing suite file": (f"--r2r-suite=jsonl:{tmp / 'missing.jsonl'}",),
        "missing baseline": (f"--r2r-baseline={tmp / 'missing.json'}",),
        "unwritable results": (f"--r2r-json={blocked / 'results.json'}",),
        "unwritable store": (f"--r2r-db={blocked / 'req2rank.db'}",),
    }


def export(ref: str, into: Path) -> Path:
    """The package as it is at ``ref``, in ``into`` (to put first on ``sys.path``)."""
    archive = subprocess.run(["git", "archive", ref, PACKAGE], cwd=ROOT, check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def copy_checkout(into: Path) -> Path:
    """The package as it is in this checkout now (edits made while the script runs are not
    measured)."""
    shutil.copytree(ROOT / PACKAGE, into / PACKAGE,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return into


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """One run's wall and CPU seconds; exits unless it was a usage error before any worker."""
    workers = Path(env["R2R_BENCH_WORKER_LOG"])
    workers.unlink(missing_ok=True)
    done, wall, cpu = run_timed(argv, cwd=cwd, env=env)
    if done.returncode != 4 or workers.exists():
        started_workers = workers.read_text().split() if workers.exists() else []
        raise SystemExit(f"{' '.join(argv)}: exit {done.returncode}, workers started "
                         f"{started_workers}, not a usage error before the workers:\n"
                         f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return wall, cpu


def ratio(values: Sequence[float], base: Sequence[float]) -> str:
    r = [v / b for v, b in zip(values, base, strict=True)]
    return f"{statistics.median(r):.2f} [{min(r):.2f}-{max(r):.2f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--compare", metavar="REF", help="A git ref to measure alongside")
    parser.add_argument("--cases", help="Comma-separated case names (default: all)")
    args = parser.parse_args()
    print(f"{machine()} at the start")
    with tempfile.TemporaryDirectory(prefix="bench-usage-") as name:
        tmp = Path(name)
        (tmp / "probe").mkdir()
        (tmp / "probe" / f"{PROBE}.py").write_text(PROBE_SOURCE)
        project = tmp / "project"
        project.mkdir()
        (project / "test_one.py").write_text("def test_one():\n    assert True\n")
        table = cases(tmp)
        chosen = ([BASELINE, *(c for c in args.cases.split(",") if c and c != BASELINE)]
                  if args.cases else list(table))
        versions = {"this checkout": copy_checkout(tmp / "checkout")}
        if args.compare:
            versions[args.compare] = export(args.compare, tmp / "compare")
        env = {k: v for k, v in os.environ.items() if not k.startswith("R2R_")}
        env["R2R_BENCH_WORKER_LOG"] = str(tmp / "workers.log")
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # byte-code cached, as an install leaves it
        runs = {(version, case): (
            [sys.executable, "-m", "pytest", "-p", PROBE, "-p", "no:cacheprovider", "-q",
             "-n", "2", *table[case]],
            {**env, "PYTHONPATH": os.pathsep.join((str(path), str(tmp / "probe")))})
            for version, path in versions.items() for case in chosen}
        for argv, run_env in runs.values():  # warm the file cache and the byte-code
            timed(argv, project, run_env)
        samples: dict[tuple[str, str], list[tuple[float, float]]] = {key: [] for key in runs}
        keys = list(runs)
        for index in range(args.rounds):
            for key in keys[index % len(keys):] + keys[:index % len(keys)]:
                argv, run_env = runs[key]
                samples[key].append(timed(argv, project, run_env))
    for version in versions:
        print(f"\n{version}: pytest -n 2 -q OPTION  ({args.rounds} interleaved rounds)")
        print(f"  {'case':20} {'wall s':>7} {'cpu s':>6}   per-round ratio to "
              f"{BASELINE!r}: wall, cpu" + (f"; to {args.compare}: wall, cpu"
                                            if args.compare and version != args.compare else ""))
        base = samples[(version, BASELINE)]
        for case in chosen:
            got = samples[(version, case)]
            walls, cpus = [w for w, _ in got], [c for _, c in got]
            line = (f"  {case:20} {statistics.median(walls):7.2f} {statistics.median(cpus):6.2f}"
                    f"   {ratio(walls, [w for w, _ in base])}  {ratio(cpus, [c for _, c in base])}")
            if args.compare and version != args.compare:
                then = samples[(args.compare, case)]
                line += (f";  {ratio(walls, [w for w, _ in then])}  "
                         f"{ratio(cpus, [c for _, c in then])}")
            print(line)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
