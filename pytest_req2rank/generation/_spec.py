"""A planned round: everything needed to rebuild its requirement on any process."""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..models import Complexity, ItemId

MutationKind = Literal["slot-filling", "constraint-stacking", "composition", "domain-migration"]
MUTATIONS: tuple[MutationKind, ...] = ("slot-filling", "constraint-stacking", "composition",
                                       "domain-migration")
SUITE = "dynamic"
_KEY_TEMPLATES = "seeds"
"""The name of the template ids in :attr:`RequirementSpec.key` (kept: see there)."""


class RequirementSpec(BaseModel):
    """One round of the dynamic suite, as drawn by :func:`plan_rounds`.

    Plain JSON data (ship it to xdist workers with ``model_dump(mode="json")``);
    :func:`build_requirement` turns it back into the concrete requirement.
    ``slots[i]`` is the full slot assignment of ``templates[i]``; ``constraints``
    are ids of the stacking catalogue.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str = Field(description="Readable pytest id, e.g. 'dynamic/r3-rate-limiter-C2-finance'")
    round: int = Field(ge=1)
    templates: tuple[str, ...] = Field(min_length=1, max_length=2)
    slots: tuple[dict[str, int | float | str | bool], ...]
    complexity: Complexity
    skills: tuple[str, ...]
    domain: str
    scenario: str
    mutations: tuple[MutationKind, ...]
    constraints: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _one_assignment_per_template(self) -> RequirementSpec:
        if len(self.slots) != len(self.templates):
            raise ValueError(f"{len(self.templates)} templates need as many slot assignments, "
                             f"got {len(self.slots)}")
        return self

    @property
    def key(self) -> str:
        """Identity of the requirement itself (round and item id left out).

        Its hash is each item's ``cluster`` in the results, which pairs a run with its
        baseline; the template ids keep the name they had in results written before
        templates were renamed (``seeds``), so those baselines still pair.
        """
        data = self.model_dump(mode="json", exclude={"item_id", "round", "templates"})
        data[_KEY_TEMPLATES] = list(self.templates)
        return json.dumps(data, sort_keys=True)

    @property
    def problem_key(self) -> str:
        """Identity of the code to write: templates, slots and stacked constraints (no setting)."""
        return json.dumps([self.templates, self.slots, self.constraints], sort_keys=True)


def item_id(round_index: int, template_ids: tuple[str, ...], complexity: str, domain: str) -> str:
    """``dynamic/r3-rate-limiter-C2-finance``; a composition joins its templates with ``+``."""
    return str(ItemId(SUITE, f"r{round_index}-{'+'.join(template_ids)}-{complexity}-{domain}"))
