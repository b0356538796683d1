"""A gated run (``--r2r-baseline``) plans as its baseline did: the settings that decide which
items a run has are the baseline's, unless the user gives them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..models import SuiteSpec
from ..options import spelling
from ._settings import Settings, SettingsError

PLAN_SETTINGS = ("suite", "sample", "seed", "samples_per_task", "rounds", "complexity",
                 "skills", "domains", "templates", "nversion", "faults")
"""The settings that decide a run's items: the suite and its filters, the sample of tasks
and its seed (which also draws the dynamic suite's requirements), the samples per task, and
an N-version run's versions and fault families."""
_ALWAYS_SAID = ("suite", "seed")
"""Reused settings the header names even when this run would have had the same value."""


@dataclass(frozen=True)
class BaselinePlan:
    """The settings of a gated run, and what it took from its baseline or kept of its own."""

    settings: Settings
    reused: tuple[str, ...]
    """The baseline's settings this run takes, as options: ``--r2r-sample=20``."""
    overridden: tuple[str, ...]
    """The user's settings that differ from the baseline's: ``--r2r-sample=5 (baseline: 3)``."""


def plan_like_baseline(settings: Settings, recorded: Mapping[str, Any], seed: int,
                       path: Path) -> BaselinePlan:
    """``settings`` with the plan settings of the baseline at ``path`` (its recorded
    ``run.settings`` and its ``run.seed``) wherever the user gave none."""
    mine = settings.model_dump(mode="json", by_alias=True)
    theirs = {**{field: recorded[field] for field in PLAN_SETTINGS if field in recorded},
              "seed": seed}
    if settings.model.kind == "samples":  # a samples file decides its samples per task
        theirs.pop("samples_per_task", None)
    updates: dict[str, Any] = {}
    reused: list[str] = []
    overridden: list[str] = []
    for field, value in theirs.items():
        if _same(field, mine[field], value):
            if field in _ALWAYS_SAID and field not in settings.explicit:
                reused.append(_option(field, value))
            continue
        if field in settings.explicit:
            overridden.append(f"{_option(field, mine[field])} (baseline: {_shown(value, field)})")
            continue
        _check_exists(field, value, path)
        updates[field] = value
        reused.append(_option(field, value))
    explicit = set(settings.explicit)
    given_there = recorded.get("explicit")
    if "suite" in updates and isinstance(given_there, list) and "suite" in given_there:
        explicit.add("suite")  # an N-version run's default suite adds the library's own tasks
    try:
        adopted = Settings.model_validate({**mine, **updates, "explicit": sorted(explicit)})
    except ValidationError as exc:
        problem = " ".join(str(exc.errors(include_url=False)[0]["msg"]).split())
        raise SettingsError(f"--r2r-baseline: {path}: its settings do not apply to this run "
                            f"({problem}); give the plan settings yourself") from None
    return BaselinePlan(adopted, tuple(reused), tuple(overridden))


def _same(field: str, mine: Any, theirs: Any) -> bool:
    if field == "suite":
        try:
            return bool(SuiteSpec.parse(str(mine)).key == SuiteSpec.parse(str(theirs)).key)
        except ValueError:
            return False
    return bool(mine == theirs)  # both as JSON: lists, never tuples


def _check_exists(field: str, value: Any, path: Path) -> None:
    """A reused suite file or template directory must be here too."""
    where = None
    if field == "suite" and str(value).startswith("jsonl:"):
        where = str(value).removeprefix("jsonl:")
    elif field == "templates" and value is not None:
        where = str(value)
    if where is not None and not Path(where).exists():
        raise SettingsError(
            f"--r2r-baseline: {path} ran {spelling('cli', field)}={value}, which is not here; "
            f"pass {spelling('cli', field)}=PATH to the same {field} (or copy it there)")


def _option(field: str, value: Any) -> str:
    return f"{spelling('cli', field)}={_shown(value, field)}"


def _shown(value: Any, field: str) -> str:
    if value is None or value == []:
        return _UNSET.get(field, "none")
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


_UNSET = {"sample": "all", "complexity": "all", "skills": "all", "domains": "all",
          "templates": "packaged", "nversion": "off"}
"""How a plan setting left unset reads: what it means."""
