"""Start-up measures, each kept because it pays off on a run users make.

Measured with ``python tests/perf/bench_startup.py`` (each measure taken out of a copy of
the checkout; interleaved rounds; see its docstring). MEASUREMENTS
"""

from __future__ import annotations

import gc
import sys


def leave_unrewritten(package: str) -> None:
    """Unmark ``package`` (and its submodules) in pytest's assertion-rewriting import hook,
    if one is installed; modules already imported stay as they are.

    pytest marks every module of a plugin's distribution for assertion rewriting, and
    rewrites each in every pytest process (the controller and each xdist worker) whenever
    it cannot cache the result: ``PYTHONDONTWRITEBYTECODE`` set, a read-only install, or a
    first run. This package's modules hold no assert whose rewritten message anyone reads.
    The hook's set of marked names is not public API, so this does nothing when it is not
    where it was.
    """
    for finder in sys.meta_path:
        marked = getattr(finder, "_must_rewrite", None)
        decided = getattr(finder, "_marked_for_rewrite_cache", None)
        if not isinstance(marked, set) or not isinstance(decided, dict):
            continue
        marked.discard(package)
        for name in [name for name in decided if name.partition(".")[0] == package]:
            del decided[name]


def freeze_long_lived() -> None:
    """Move every object alive now out of the cyclic garbage collector's sight for good.

    Called when a benchmark's run loop starts (modules, the plan, the tasks, the items) and
    again after a process's first benchmark item (what that item loaded on first use: the
    model's client library, the judges). Later collections then skip them; a full
    collection over LiteLLM's objects took ~0.1 s of CPU, several times an item.
    """
    gc.freeze()
