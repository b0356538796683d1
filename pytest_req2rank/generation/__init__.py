"""Requirements: the skill matrix and taxonomy, the seed library, slot filling and seed quality."""

from ._instantiate import Assignment, assignment_count, assignments, complete_assignment, instantiate
from ._loader import SeedError, check_seed_file, default_seed_dir, load_seed, load_seeds
from ._models import (
    FunctionalRequirement,
    Guidance,
    Interface,
    ProbeSpec,
    ProjectRequirement,
    RequirementMetadata,
    Seed,
    SlotSpec,
)
from ._quality import (
    MIN_MUTATION_SCORE,
    InfrastructureError,
    MutationScore,
    ProbeGrader,
    mutation_score,
    reference_failures,
    sandbox_grader,
)
from ._schema import seed_schema
from ._taxonomy import COMPLEXITIES, DOMAINS, SKILLS, Complexity, ComplexityLevel, scenario_ids
from ._templating import ExpressionError

__all__ = [
    "COMPLEXITIES",
    "MIN_MUTATION_SCORE",
    "InfrastructureError",
    "MutationScore",
    "ProbeGrader",
    "mutation_score",
    "reference_failures",
    "sandbox_grader",
    "DOMAINS",
    "SKILLS",
    "Assignment",
    "Complexity",
    "ComplexityLevel",
    "ExpressionError",
    "FunctionalRequirement",
    "Guidance",
    "Interface",
    "ProbeSpec",
    "ProjectRequirement",
    "RequirementMetadata",
    "Seed",
    "SeedError",
    "SlotSpec",
    "assignment_count",
    "assignments",
    "check_seed_file",
    "complete_assignment",
    "default_seed_dir",
    "instantiate",
    "load_seed",
    "load_seeds",
    "scenario_ids",
    "seed_schema",
]
