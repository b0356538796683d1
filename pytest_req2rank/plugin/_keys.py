"""Stash keys shared by the plugin's modules (kept free of heavy imports)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ..models import ItemResult
    from ..run import Run

RUN_KEY: pytest.StashKey[Run] = pytest.StashKey()
"""The session's run (:class:`pytest_req2rank.run.Run`), on every process that evaluates."""
RESULT_KEY: pytest.StashKey[ItemResult] = pytest.StashKey()
BENCHMARK_COLLECTED_KEY = pytest.StashKey[bool]()
"""Set when a collected test requests ``r2r_task`` (else the plugin adds its own items)."""
FROZEN_AFTER_ITEM_KEY = pytest.StashKey[bool]()
"""Set when this process froze what its first benchmark item loaded."""
PLAN_INPUT = "r2r_plan"
"""The ``workerinput`` key of the plan the controller ships to its workers."""
KEPT_INPUT = "r2r_kept"
"""The ``workerinput`` key of the items a resumed run keeps (the controller decides them)."""
