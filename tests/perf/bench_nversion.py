"""The cost of the offline N-version experiment: ``pytest --r2r-nversion=5`` over the whole
library (both fault families), serial, in a fresh directory; prints the wall time, the time
per item (versions and ensemble checks apart, from the results JSON) and the pattern table.

    python tests/perf/bench_nversion.py [N]

Not collected (no ``test_`` prefix)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import fmean, median


def main(n: int = 5) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        run = subprocess.run(
            [sys.executable, "-m", "pytest", f"--r2r-nversion={n}", "--r2r-seed=1",
             "--r2r-json=results.json", "-q", "-p", "no:xdist", "-p", "no:cacheprovider"],
            cwd=tmp, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t0
        results = Path(tmp, "results.json")
        if not results.exists():
            sys.exit(f"the run wrote no results (exit {run.returncode}):\n{run.stdout[-2000:]}")
        data = json.loads(results.read_text())
    items = data["items"]
    print(f"N={n}: {len(items)} items in {wall:.1f} s wall ({wall / len(items) * 1000:.0f} ms "
          f"per item; pytest exit {run.returncode})")
    for role in ("version", "ensemble"):
        times = [i["timings"]["total_s"] for i in items if i["nversion"]["role"] == role]
        print(f"  {role:<8} {len(times):>4} items | mean {fmean(times) * 1000:.0f} ms | median "
              f"{median(times) * 1000:.0f} ms | max {max(times) * 1000:.0f} ms | total "
              f"{sum(times):.1f} s")
    print(*[line for line in run.stdout.splitlines() if line.startswith(("N-version", "  "))],
          sep="\n")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
