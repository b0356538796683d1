"""A first-order mutant: one small change to one file."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    """One mutation of a source. ``path`` is set when it came from a multi-file solution."""

    id: str
    kind: str
    line: int
    col: int
    description: str
    source: str
    path: str | None = None

    def apply(self, files: Mapping[str, str]) -> dict[str, str]:
        """The files of a solution with this mutant's file replaced."""
        if self.path is None or self.path not in files:
            raise KeyError(f"mutant {self.id} belongs to no file of this solution")
        return {**files, self.path: self.source}
