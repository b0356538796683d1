"""Requirements: the skill matrix and taxonomy, the template library, slot filling and template
quality, the per-round draw and its mutations, the generator pipeline and near-duplicate rejection."""

from ._compose import clash
from ._constraints import CATALOGUE
from ._draw import plan_rounds
from ._instantiate import assignments, instantiate
from ._loader import TemplateError, bundled_library, load_templates
from ._mutations import build_requirement
from ._pipeline import elaborate
from ._quality import MIN_MUTATION_SCORE, InfrastructureError, mutation_score, sandbox_grader
from ._spec import RequirementSpec
from ._template import Template

__all__ = [
    "CATALOGUE",
    "MIN_MUTATION_SCORE",
    "InfrastructureError",
    "RequirementSpec",
    "Template",
    "TemplateError",
    "assignments",
    "build_requirement",
    "bundled_library",
    "clash",
    "elaborate",
    "instantiate",
    "load_templates",
    "mutation_score",
    "plan_rounds",
    "sandbox_grader",
]
