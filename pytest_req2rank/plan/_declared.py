"""What a submitted run declares when it fetches its nonce, before its seed is known: its
model, and the settings that decide what it asks and how it is graded, so the hub can hold
the run to them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DECLARED_SETTINGS = (
    "rounds", "complexity", "skills", "domains", "templates", "generator", "sample",
    "samples_per_task", "nversion", "faults", "judges", "exclude_self_judging",
    "execution_weight", "weights", "sandbox_timeout_ms", "max_tokens", "temperature",
)
"""The settings besides the suite and the seed that decide a run's items, its answers'
grading and its scores."""


def declared_settings(suite: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    """The suite and :data:`DECLARED_SETTINGS` of a run, from its settings as JSON data (the
    results JSON's ``run.settings``); a template directory only as whether there is one (its
    path is the submitter's)."""
    declared = {"suite": suite, **{name: settings.get(name) for name in DECLARED_SETTINGS}}
    declared["templates"] = bool(declared["templates"])
    return declared
