"""What the installed plugin costs a pytest session that does not benchmark.

Runs an unrelated one-test project with the plugin loaded and with it blocked
(``-p no:req2rank``, as if it were not installed), in interleaved rounds, and prints the
medians of the wall time and the CPU time of each and their ratio. Nothing is asserted.

    python tests/perf/bench_inert.py [--rounds 21] [--xdist]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TEST = "def test_one():\n    assert sum(range(10)) == 45\n"


def timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one pytest run (the CPU time of the run's processes)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stdout}{done.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--xdist", action="store_true", help="run both with -n 2")
    args = parser.parse_args()
    extra = ["-n", "2"] if args.xdist else []
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        (project / "test_unrelated.py").write_text(TEST)
        base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra]
        runs = {"plugin blocked (baseline)": [*base, "-p", "no:req2rank"], "plugin loaded": base}
        for argv in runs.values():  # warm the file cache and the bytecode
            timed(argv, project)
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
        ratios = []
        for _ in range(args.rounds):
            pair = {name: timed(argv, project) for name, argv in runs.items()}
            for name, sample in pair.items():
                samples[name].append(sample)
            ratios.append(pair["plugin loaded"][0] / pair["plugin blocked (baseline)"][0])
    print(f"unrelated one-test project, {args.rounds} interleaved rounds"
          f"{' with -n 2' if args.xdist else ''}, python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs")
    for name, values in samples.items():
        wall = statistics.median(v[0] for v in values)
        cpu = statistics.median(v[1] for v in values)
        print(f"  {name:28} wall {wall * 1000:7.1f} ms   cpu {cpu * 1000:7.1f} ms")
    print(f"  per-round wall ratio loaded/blocked: median {statistics.median(ratios):.3f} "
          f"(min {min(ratios):.3f}, max {max(ratios):.3f})")


if __name__ == "__main__":
    main()
