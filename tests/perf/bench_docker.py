"""The docker backend's throughput next to the ``process`` backend's, in the same run.

Not collected by pytest; needs a Docker engine (``.ci/docker-engine.sh`` starts one). Run:
``python tests/perf/bench_docker.py [--image TAG] [--runs N]``. The image is ``--image``,
else ``R2R_TEST_DOCKER_IMAGE``, else built from this machine's Python
(``tests/sandbox/docker_image.py``). Prints, for each backend:

- the time to the first execution of a new sandbox (docker: create, attach, start, hello,
  then the execution), median of a few;
- executions/second of a trivial program, with one caller and with two (docker: one
  container per caller);
- HumanEval's 164 canonical solutions graded through ``execution.grade``: cold (the
  references are recorded in the run: two executions a task) then warm (one), with one
  and two callers, as tasks/second;

and each docker figure as a ratio of the process backend's. Wall times only; nothing here
is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench_sandbox import ours  # this directory is sys.path[0] when run as a script

from pytest_req2rank.execution import ReferenceCache
from pytest_req2rank.models import Task
from pytest_req2rank.sandbox import PYTHON, ExecRequest, ProcessSandbox, Sandbox
from pytest_req2rank.sandbox._docker import DockerSandbox
from pytest_req2rank.suites import load_humaneval

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sandbox"))
from docker_image import ensure_image

TRIVIAL = ExecRequest(files={"main.py": "def add(a, b):\n    return a + b\n\n\n"
                                        "assert add(1, 2) == 3\n"}, argv=(PYTHON, "main.py"))
TIMEOUT_S = 3.0
CALLERS = (1, 2)
FIRST_RUNS = 5


def first_execution_s(make: Callable[[], Sandbox]) -> float:
    """Median time from a new sandbox's first run() call to its outcome."""
    times = []
    for _ in range(FIRST_RUNS):
        with make() as sandbox:
            start = time.perf_counter()
            assert sandbox.run(TRIVIAL).ok
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def rate(sandbox: Sandbox, runs: int, callers: int) -> float:
    def once(_: int) -> None:
        outcome = sandbox.run(TRIVIAL)
        assert outcome.ok, outcome

    with ThreadPoolExecutor(callers) as pool:
        list(pool.map(once, range(2 * callers)))  # warm: every caller's container or server
        start = time.perf_counter()
        list(pool.map(once, range(runs)))
    return runs / (time.perf_counter() - start)


def humaneval(sandbox: Sandbox, tasks: list[Task], cache: ReferenceCache,
              callers: int) -> tuple[float, int]:
    """Tasks graded per second and how many were solved (bench_sandbox's grading loop)."""
    elapsed, solved = ours(sandbox, tasks, cache, callers)  # type: ignore[arg-type]
    return len(tasks) / elapsed, solved


def line(label: str, figures: dict[str, float], unit: str, solved: str = "") -> None:
    docker, process = figures["docker"], figures["process"]
    print(f"{label:42} docker {docker:8.2f} {unit}  process {process:8.2f} {unit}  "
          f"docker/process {docker / process:5.2f}x {solved}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", default=os.environ.get("R2R_TEST_DOCKER_IMAGE"))
    parser.add_argument("--runs", type=int, default=300, help="Trivial executions to time")
    args = parser.parse_args()
    image = args.image or ensure_image()
    makers: dict[str, Callable[[], Sandbox]] = {
        "docker": lambda: DockerSandbox(image, containers=max(CALLERS)),
        "process": lambda: ProcessSandbox(),
    }
    boxes = {name: make() for name, make in makers.items()}
    for name, box in boxes.items():
        print(f"{name}: {box.isolation}")
    print(f"load average before: {os.getloadavg()[0]:.2f} (figures vary with it)\n")
    line("first execution of a new sandbox", {name: first_execution_s(make) * 1000
                                              for name, make in makers.items()}, "ms")
    for callers in CALLERS:
        line(f"trivial program, x{callers} callers",
             {name: rate(box, args.runs, callers) for name, box in boxes.items()}, "/s")
    tasks = load_humaneval()
    for callers in CALLERS:
        with tempfile.TemporaryDirectory(prefix="r2r-bench-docker-") as references:
            caches = {name: ReferenceCache(Path(references) / name) for name in boxes}
            for state in ("cold", "warm"):
                results = {name: humaneval(box, tasks, caches[name], callers)
                           for name, box in boxes.items()}
                solved = "/".join(f"{results[name][1]}" for name in boxes)
                line(f"HumanEval 164, {state} references, x{callers}",
                     {name: value for name, (value, _) in results.items()}, "tasks/s",
                     f"(success {solved} of 164)")
    for box in boxes.values():
        box.close()


if __name__ == "__main__":
    main()
