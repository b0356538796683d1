"""For the perf scripts: a command's wall time and the CPU time of all its processes."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from typing import Any


def run_timed(argv: list[str], **kwargs: Any) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """Run ``argv`` to its end (output captured as text, its exit code not checked); what it
    did, its wall seconds, and the CPU seconds of every process it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return done, wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def machine() -> str:
    """The interpreter, the cores and the load now: what a figure printed below depends on."""
    return (f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
            f"{os.getloadavg()[0]:.1f}")
