"""Code that runs INSIDE the sandbox. Every module here imports the standard library only,
never anything of ``pytest_req2rank``: the host ships each one as source into a sandbox that
holds neither the plugin nor its dependencies (an import-linter contract checks it).

- :mod:`.forkserver`: the sandbox's pid 1 (bubblewrap or docker); forks one child per
  execution.
- :mod:`.boot`, :mod:`.harness`, :mod:`.replay`: the grading harness, the program an
  execution runs when the host grades code (``_r2r_boot``, ``_r2r_harness`` and
  ``_r2r_replay`` in the sandbox). It reports what the code did, one record per test, and
  never a verdict the host would take on trust.

The host reads these files with :func:`source`; nothing else of the plugin imports them.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["source"]


@cache
def source(name: str) -> str:
    """The source of this package's module ``name`` (e.g. ``"harness"``)."""
    return resources.files(__name__).joinpath(f"{name}.py").read_text(encoding="utf-8")
