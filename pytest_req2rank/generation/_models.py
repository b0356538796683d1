"""The seed library's data: a seed as written, and a concrete requirement made from it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..models import Priority, Probe
from ._taxonomy import Complexity

SlotType = Literal["int", "float", "str", "identifier", "bool"]
InterfaceKind = Literal["function", "module", "cli", "http"]

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


class FunctionalRequirement(BaseModel):
    """One functional requirement (``FR-n``) with its acceptance criteria."""

    model_config = _FROZEN

    id: str
    text: str
    acceptance: str
    priority: Priority


class Interface(BaseModel):
    """What the solution must expose, in the form ``kind`` says."""

    model_config = _FROZEN

    kind: InterfaceKind
    text: str


class Guidance(BaseModel):
    """Evaluation guidance, for the judges only."""

    model_config = _FROZEN

    differentiators: tuple[str, ...]
    pitfalls: tuple[str, ...]
    edge_cases: tuple[str, ...]


class ProbeSpec(BaseModel):
    """A hidden acceptance test as written in a seed (placeholders not yet filled).

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


class Seed(BaseModel):
    """One hand-written seed of the library."""

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
    path: str = Field(default="", description="The file the seed was loaded from")

    def slot(self, name: str) -> SlotSpec:
        return next(s for s in self.slots if s.name == name)


class RequirementMetadata(BaseModel):
    model_config = _FROZEN

    skills: tuple[str, ...]
    complexity: Complexity
    domain: str | None = None
    scenario: str | None = None


class ProjectRequirement(BaseModel):
    """A concrete requirement: a seed with every slot filled (a ProjectRequirement).

    ``guidance`` is for judges and ``reference``, ``setup`` and ``probes`` are
    hidden; :meth:`brief` is what the target model may see.
    """

    model_config = _FROZEN

    id: str
    seed_id: str
    title: str
    description: str
    requirements: tuple[FunctionalRequirement, ...]
    constraints: tuple[str, ...]
    deliverables: tuple[str, ...]
    interface: Interface
    metadata: RequirementMetadata
    guidance: Guidance
    slots: dict[str, int | float | str | bool]
    reference: dict[str, str]
    setup: str = ""
    probes: tuple[Probe, ...]

    def brief(self) -> dict[str, Any]:
        """The requirement as shown to the target model: never tests, reference or guidance."""
        return self.model_dump(
            include={"id", "title", "description", "requirements", "constraints",
                     "deliverables", "interface", "metadata"},
            mode="json",
        )
