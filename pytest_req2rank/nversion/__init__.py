"""N-version programming: N versions of a task, from the offline library of diverse
implementations or a model (through the generation pipeline: a state machine with HILE, IRQN
and test-driven repair); faults injected (mutants, common-mode failures), votes on the host,
and the ensemble's metrics (FR, MCR, CCR, TPR, AFVR) and diversity."""

from ._answers import AnswerError
from ._collection import collect
from ._common_mode import NotApplicable, load_common_modes
from ._diversity import STRUCTURAL, ls, mbcs, sdp
from ._experiment import PatternRun, TaskExperiment, aggregate, run_experiment
from ._faults import MAX_MUTANT_TRIES, Pattern
from ._fsm import State
from ._irqn import decide, irqn
from ._items import (
    FAMILY_PATTERNS,
    LibraryProvider,
    NVersionEvaluator,
    library_tasks,
    nversion_tasks,
    patterns_of,
    repeated_tasks,
)
from ._library import FAMILIES, load_library, normalised_ast_similarity, requirement_tasks
from ._outputs import Output
from ._pipeline import Generation
from ._semantic import SemanticMeasures
from ._voting import vote

__all__ = [
    "FAMILIES",
    "FAMILY_PATTERNS",
    "MAX_MUTANT_TRIES",
    "STRUCTURAL",
    "AnswerError",
    "Generation",
    "LibraryProvider",
    "NVersionEvaluator",
    "NotApplicable",
    "Output",
    "Pattern",
    "PatternRun",
    "SemanticMeasures",
    "State",
    "TaskExperiment",
    "aggregate",
    "collect",
    "decide",
    "irqn",
    "library_tasks",
    "load_common_modes",
    "load_library",
    "ls",
    "mbcs",
    "normalised_ast_similarity",
    "nversion_tasks",
    "patterns_of",
    "repeated_tasks",
    "requirement_tasks",
    "run_experiment",
    "sdp",
    "vote",
]
