"""The template library's data: a requirement template as written, with its slots and probes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..models import Complexity, FunctionalRequirement, Guidance, Interface, Priority

SlotType = Literal["int", "float", "str", "identifier", "bool"]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class SlotSpec(BaseModel):
    """A typed slot of the skeleton and the values it may take.

    ``tied_to`` names another slot: this one then takes the value at the same
    index (a plural that follows its singular, a symbol that follows a currency).
    """

    model_config = _FROZEN

    name: str
    type: SlotType
    values: tuple[int | float | str | bool, ...]
    description: str = ""
    tied_to: str | None = None


class ProbeSpec(BaseModel):
    """A hidden acceptance test as written in a template (placeholders not yet filled).

    Exactly one of ``expect`` (plain data, placeholders allowed), ``expect_expr``
    (a safe expression over slot values) and ``raises`` (an exception class name).
    """

    model_config = _FROZEN

    name: str
    code: str
    expect: Any = None
    expect_expr: str | None = None
    raises: str | None = None
    priority: Priority = "must"
    requirement: str | None = None
    tolerance: float = 1e-6


class Template(BaseModel):
    """One hand-written template of the library."""

    model_config = _FROZEN

    id: str
    title: str
    skills: tuple[str, ...]
    complexity: Complexity
    domains: tuple[str, ...]
    scenarios: tuple[str, ...] = ()
    description: str
    slots: tuple[SlotSpec, ...]
    interface: Interface
    requirements: tuple[FunctionalRequirement, ...]
    constraints: tuple[str, ...]
    deliverables: tuple[str, ...]
    guidance: Guidance
    reference: dict[str, str] = Field(description="Reference solution: path → content")
    setup: str = Field(default="", description="Code run before every probe")
    probes: tuple[ProbeSpec, ...]
    path: str = Field(default="", description="The file the template was loaded from")

    def slot(self, name: str) -> SlotSpec:
        return next(s for s in self.slots if s.name == name)
