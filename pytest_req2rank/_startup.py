"""Run-time measures kept because they pay off on the runs users make.

One measure is left: :func:`freeze_long_lived`. Measured with
``python tests/perf/bench_startup.py`` (each variant a copy of the checkout with the measure
taken out, interleaved rounds, per-round ratios to the checkout as is; 2 cores):

- a real-model-shaped run (the fake model answering in 1.5 s, two LLM judges in 1 s and
  2 s, 20 items, ``-n 2``; 3 rounds): without any freeze, wall 1.06x and CPU 1.56x; frozen
  at the loop's start only, wall 1.03x and CPU 1.32x;
- the offline HumanEval run (``-n 2``; 5 rounds): without any freeze, wall 1.11x and CPU
  1.19x; frozen at the loop's start only, no difference;
- an unrelated session (the plugin installed, inert): no difference.

Measured and removed: keeping pytest from assert-rewriting the package (through pytest's
private rewrite-hook state: 1.01x wall on the real-model run, 1.15x only on an offline run
whose rewrites pytest cannot cache), skipping numpy and pandas on an xdist controller, a
plain-Python copy of ``np.percentile``, ``-p no:anyio``, and an on-disk cache of HumanEval
check decompositions (0.1 s of CPU a run).
"""

from __future__ import annotations

import gc


def freeze_long_lived() -> None:
    """Move every object alive now out of the cyclic garbage collector's sight for good.

    Called when a benchmark's run loop starts (modules, the plan, the tasks, the items) and
    again after a process's first benchmark item (what that item loaded on first use: the
    model's client library, the judges). Later collections then skip them: without it, a
    real-model run spent twice the CPU time in the collector (2.1 s against 1.0 s).
    """
    gc.freeze()
