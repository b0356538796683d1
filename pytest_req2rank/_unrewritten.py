"""Keep pytest from rewriting the asserts of this package's own modules.

pytest marks every module of a plugin's distribution for assertion rewriting. Rewriting
re-parses and re-compiles each module in every pytest process (the controller and each
xdist worker) whenever it cannot cache the result: ``PYTHONDONTWRITEBYTECODE`` set, a
read-only install, or a first run. For this package that was ~0.8 s of CPU a process, and
its modules hold no assert whose rewritten message anyone reads. The hook's set of marked
names is not public API, so this does nothing when it is not where it was.
"""

from __future__ import annotations

import sys


def leave_unrewritten(package: str) -> None:
    """Unmark ``package`` (and its submodules) in pytest's assertion-rewriting import hook,
    if one is installed; modules already imported stay as they are."""
    for finder in sys.meta_path:
        marked = getattr(finder, "_must_rewrite", None)
        decided = getattr(finder, "_marked_for_rewrite_cache", None)
        if not isinstance(marked, set) or not isinstance(decided, dict):
            continue
        marked.discard(package)
        for name in [name for name in decided if name.partition(".")[0] == package]:
            del decided[name]
