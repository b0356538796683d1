"""Run-time measures that pay off on the runs users make: each is kept only while
``python tests/perf/bench_startup.py`` shows a run slower without it (the figures, and the
measures tried and removed, are in docs/performance.md)."""

from __future__ import annotations

import gc


def freeze_long_lived() -> None:
    """Move every object alive now out of the cyclic garbage collector's sight for good.

    Called when a benchmark's run loop starts (modules, the plan, the tasks, the items) and
    again after a process's first benchmark item (what that item loaded on first use: the
    model's client library, the judges). Most live as long as the process, so the cyclic
    collector's passes over them find nothing; later collections then skip them. And at a
    benchmark session's end, in every process: the collections at exit (pytest's own, then
    the interpreter's) then skip what the run left (the checks' syntax trees, above all),
    which an xdist controller waits for in its workers and the user in the last process.
    """
    gc.freeze()
