"""Requirements: the skill matrix and taxonomy, the template library, slot filling and template
quality, the per-round draw and its mutations, the generator pipeline and near-duplicate rejection."""

from ._calibrate import CalibrationPolicy
from ._compose import clash, compose
from ._constraints import CATALOGUE
from ._dedup import DUPLICATE_THRESHOLD, NearDuplicateIndex, humaneval_index, requirement_text
from ._draw import plan_rounds
from ._instantiate import assignment_count, assignments, instantiate
from ._loader import (
    TemplateError,
    bundled_library,
    check_template_file,
    load_template,
    load_templates,
)
from ._models import Template
from ._mutations import build_requirement, stack_constraints
from ._pipeline import Elaboration, elaborate
from ._quality import (
    MIN_MUTATION_SCORE,
    InfrastructureError,
    ProbeGrader,
    mutation_score,
    reference_failures,
    sandbox_grader,
)
from ._spec import MUTATIONS, RequirementSpec
from ._structured import StructureError, as_answer, read_answer
from ._templating import ExpressionError

__all__ = [
    "CATALOGUE",
    "DUPLICATE_THRESHOLD",
    "MIN_MUTATION_SCORE",
    "MUTATIONS",
    "CalibrationPolicy",
    "Elaboration",
    "ExpressionError",
    "InfrastructureError",
    "NearDuplicateIndex",
    "ProbeGrader",
    "RequirementSpec",
    "StructureError",
    "Template",
    "TemplateError",
    "as_answer",
    "assignment_count",
    "assignments",
    "build_requirement",
    "bundled_library",
    "check_template_file",
    "clash",
    "compose",
    "elaborate",
    "humaneval_index",
    "instantiate",
    "load_template",
    "load_templates",
    "mutation_score",
    "plan_rounds",
    "read_answer",
    "reference_failures",
    "requirement_text",
    "sandbox_grader",
    "stack_constraints",
]
