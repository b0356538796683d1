"""How strongly a run's sandbox kept the generated code away from the host."""

from __future__ import annotations

from typing import Literal

IsolationLevel = Literal["full", "remote", "namespaces", "rlimits"]
"""``full``: filesystem, network and pid isolation on this host (bubblewrap, Docker);
``remote``: the code runs on a separate service (SandboxFusion); ``namespaces``: network and
pid namespaces but the host's filesystem in view; ``rlimits``: resource limits only."""

WEAK_ISOLATION: frozenset[IsolationLevel] = frozenset({"namespaces", "rlimits"})
"""Levels a run gets only when asked for by name; results made under them are flagged."""
