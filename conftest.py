"""Repo-level pytest setup: lets the benchmarks run from a checkout that is not installed."""

from __future__ import annotations

import sys
from importlib.metadata import entry_points
from pathlib import Path

if not any(ep.value == "pytest_req2rank.plugin" for ep in entry_points(group="pytest11")):
    sys.path.insert(0, str(Path(__file__).parent))
    pytest_plugins = ["pytest_req2rank.plugin"]
