"""The knowledge base of the generation pipeline: per problem family, the algorithmic
paradigms, data structures and control-flow patterns its diversity prompts draw on.

One TOML file per family (``knowledge/sorting.toml``), every task family of the library plus
``general`` for the rest, each carrying the format's :data:`KNOWLEDGE_VERSION`. Errors are one
``file: field: reason`` line each, like the library's.
"""

from __future__ import annotations

import tomllib
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, ValidationError

from ..errors import ConfigurationError
from ._library import FAMILIES

KNOWLEDGE_VERSION = 1
"""The knowledge base's format and content version; every file carries it as ``version``."""
GENERAL = "general"
"""The family of a task outside :data:`FAMILIES`."""
MIN_ENTRIES = 3
"""Fewest entries of each list of a family."""
_LISTS = ("paradigms", "data_structures", "control_flow")


class KnowledgeError(ConfigurationError, ValueError):
    """One or more knowledge files are wrong; ``errors`` holds one line each."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors = errors


class FamilyKnowledge(BaseModel):
    """What the pipeline knows of one problem family."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: StrictInt
    family: StrictStr
    description: StrictStr
    paradigms: tuple[StrictStr, ...]
    data_structures: tuple[StrictStr, ...]
    control_flow: tuple[StrictStr, ...]

    def as_data(self) -> dict[str, Any]:
        """The entry as prompts embed it (JSON data, not prose)."""
        return self.model_dump(exclude={"version"})


class KnowledgeBase(BaseModel):
    """Every family's knowledge, by family name."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int
    families: dict[str, FamilyKnowledge]

    def of(self, family: str | None) -> FamilyKnowledge:
        """The knowledge of ``family``; :data:`GENERAL` for an unknown or missing one."""
        return self.families.get(family or GENERAL, self.families[GENERAL])


def bundled_knowledge() -> Traversable:
    """The knowledge base shipped inside the package."""
    return files("pytest_req2rank.nversion").joinpath("knowledge")


def load_knowledge(folder: Path | Traversable | None = None) -> KnowledgeBase:
    """Load and check every ``*.toml`` of ``folder`` (default: the bundled knowledge base);
    raises :class:`KnowledgeError` listing every problem found."""
    root = folder if folder is not None else bundled_knowledge()
    errors: list[str] = []
    families: dict[str, FamilyKnowledge] = {}
    for entry in sorted((e for e in root.iterdir() if e.name.endswith(".toml")),
                        key=lambda e: e.name):
        knowledge, problems = _check_file(entry)
        errors += [f"{entry.name}: {problem}" for problem in problems]
        if knowledge is not None:
            families[knowledge.family] = knowledge
    missing = [f for f in (*FAMILIES, GENERAL) if f not in families]
    if missing and not errors:
        errors.append(f"{root}: no file for the families {', '.join(missing)}")
    if errors:
        raise KnowledgeError(errors)
    return KnowledgeBase(version=KNOWLEDGE_VERSION, families=families)


def _check_file(entry: Path | Traversable) -> tuple[FamilyKnowledge | None, list[str]]:
    try:
        data = tomllib.loads(entry.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return None, [f"not valid TOML: {exc}"]
    try:
        knowledge = FamilyKnowledge.model_validate(data)
    except ValidationError as exc:
        return None, [f"{'.'.join(str(p) for p in e['loc']) or '?'}: {e['msg']}"
                      for e in exc.errors(include_url=False)]
    problems = []
    if knowledge.version != KNOWLEDGE_VERSION:
        problems.append(f"version: {knowledge.version} given, this plugin reads "
                        f"{KNOWLEDGE_VERSION}")
    if knowledge.family not in (*FAMILIES, GENERAL):
        problems.append(f"family: {knowledge.family!r} is not one of "
                        f"{', '.join((*FAMILIES, GENERAL))}")
    elif entry.name != f"{knowledge.family}.toml":
        problems.append(f"family: {knowledge.family!r} belongs in {knowledge.family}.toml")
    for name in _LISTS:
        values = [v.strip().lower() for v in getattr(knowledge, name)]
        if len(values) < MIN_ENTRIES or not all(values):
            problems.append(f"{name}: at least {MIN_ENTRIES} non-empty entries needed")
        elif len(set(values)) != len(values):
            problems.append(f"{name}: an entry is listed twice")
    return (None if problems else knowledge), problems
