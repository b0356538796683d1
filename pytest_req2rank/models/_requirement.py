"""A concrete requirement: what the target model is asked to build, and how it is checked."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ._task import Priority, Probe
from ._taxonomy import Complexity

InterfaceKind = Literal["function", "module", "cli", "http"]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


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


class RequirementMetadata(BaseModel):
    model_config = _FROZEN

    skills: tuple[str, ...]
    complexity: Complexity
    domain: str | None = None
    scenario: str | None = None


class ProjectRequirement(BaseModel):
    """A concrete requirement: a template with every slot filled.

    ``guidance`` is for judges and ``reference``, ``setup`` and ``probes`` are
    hidden; :meth:`brief` is what the target model may see.
    """

    model_config = _FROZEN

    id: str
    template_id: str
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
