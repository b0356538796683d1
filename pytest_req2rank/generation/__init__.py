"""Requirements: the skill matrix and taxonomy, the template library, slot filling and template
quality, the per-round draw and its mutations, the generator pipeline and near-duplicate rejection."""

from ._calibrate import Calibration, CalibrationPolicy, DroppedProbe, calibrate
from ._compose import clash, compose, composed_complexity
from ._constraints import CATALOGUE, ExtraConstraint
from ._dedup import (
    DUPLICATE_THRESHOLD,
    DuplicateMatch,
    NearDuplicateIndex,
    humaneval_index,
    requirement_text,
)
from ._draw import plan_rounds
from ._instantiate import (
    Assignment,
    assignment_count,
    assignments,
    complete_assignment,
    instantiate,
)
from ._loader import (
    TemplateError,
    bundled_library,
    check_template_file,
    load_template,
    load_templates,
)
from ._models import ProbeSpec, SlotSpec, Template
from ._mutations import build_requirement, stack_constraints
from ._pipeline import Attempt, Elaboration, Provenance, StageOutput, elaborate
from ._prompts import PROMPT_VERSION
from ._quality import (
    MIN_MUTATION_SCORE,
    InfrastructureError,
    MutationScore,
    ProbeGrader,
    mutation_score,
    reference_failures,
    sandbox_grader,
)
from ._schema import template_schema
from ._spec import MUTATIONS, MutationKind, RequirementSpec
from ._structured import StructureError, as_answer, read_answer, requirement_schema
from ._templating import ExpressionError

__all__ = [
    "CATALOGUE",
    "DUPLICATE_THRESHOLD",
    "MIN_MUTATION_SCORE",
    "MUTATIONS",
    "PROMPT_VERSION",
    "Assignment",
    "Attempt",
    "Calibration",
    "CalibrationPolicy",
    "DroppedProbe",
    "DuplicateMatch",
    "Elaboration",
    "ExpressionError",
    "ExtraConstraint",
    "InfrastructureError",
    "MutationKind",
    "MutationScore",
    "NearDuplicateIndex",
    "ProbeGrader",
    "ProbeSpec",
    "Provenance",
    "RequirementSpec",
    "SlotSpec",
    "StageOutput",
    "StructureError",
    "Template",
    "TemplateError",
    "as_answer",
    "assignment_count",
    "assignments",
    "build_requirement",
    "bundled_library",
    "calibrate",
    "check_template_file",
    "clash",
    "complete_assignment",
    "compose",
    "composed_complexity",
    "elaborate",
    "humaneval_index",
    "instantiate",
    "load_template",
    "load_templates",
    "mutation_score",
    "plan_rounds",
    "read_answer",
    "reference_failures",
    "requirement_schema",
    "requirement_text",
    "sandbox_grader",
    "stack_constraints",
    "template_schema",
]
