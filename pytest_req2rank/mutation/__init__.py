"""First-order mutation of Python source: operators in a registry, mutants out.

Used to prove a template's hidden tests strong (they must kill the mutants of its
reference) and by N-version fault injection.
"""

from ._engine import Mutant, mutants, mutate_files
from ._operators import OPERATORS

__all__ = [
    "OPERATORS",
    "Mutant",
    "mutants",
    "mutate_files",
]
