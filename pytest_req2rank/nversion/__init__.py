"""N-version programming: the offline library of diverse implementations, the library of
common-mode failures (algorithm-level faults injected into every version of a task)."""

from ._common_mode import (
    CommonModeFailure,
    NotApplicable,
    bundled_catalogue,
    for_family,
    load_common_modes,
)
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
    "CommonModeFailure",
    "Implementation",
    "LibraryError",
    "LibraryTask",
    "NotApplicable",
    "bundled_catalogue",
    "check_library_file",
    "for_family",
    "load_common_modes",
    "load_library",
    "normalised_ast",
    "structural_similarity",
]
