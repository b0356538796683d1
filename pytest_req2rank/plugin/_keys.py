"""Stash keys shared by the plugin's modules (kept free of heavy imports)."""

from __future__ import annotations

import pytest

EVALUATOR_KEY = pytest.StashKey["Evaluator"]()
CONTROLLER_KEY = pytest.StashKey["Controller"]()
RESULT_KEY = pytest.StashKey["ItemResult"]()
BENCHMARK_COLLECTED_KEY = pytest.StashKey[bool]()
"""Set when a collected test requests ``r2r_task`` (else the plugin adds its own items)."""
FROZEN_AFTER_ITEM_KEY = pytest.StashKey[bool]()
"""Set when this process froze what its first benchmark item loaded."""
KEPT_INPUT = "r2r_kept"
"""The ``workerinput`` key of the items a resumed run keeps (the controller decides them)."""
BASELINE_KEY = pytest.StashKey[str]()
"""The header line of a gated run: what it reuses of its baseline's plan."""
