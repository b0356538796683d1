"""N-version programming: the offline library of diverse implementations, the library of
common-mode failures (algorithm-level faults injected into every version of a task)."""

from ._library import (
    FAMILIES,
    LIBRARY_VERSION,
    Implementation,
    LibraryError,
    LibraryTask,
    check_library_file,
    load_library,
    normalised_ast,
    structural_similarity,
)

__all__ = [
    "FAMILIES",
    "LIBRARY_VERSION",
    "Implementation",
    "LibraryError",
    "LibraryTask",
    "check_library_file",
    "load_library",
    "normalised_ast",
    "structural_similarity",
]
