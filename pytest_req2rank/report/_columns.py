"""Plain-text tables: cells aligned in columns, for the terminal."""

from __future__ import annotations

from collections.abc import Collection, Sequence


def aligned(table: Sequence[Sequence[str]], left: Collection[int] = (0,)) -> list[str]:
    """``table``'s rows as lines, each column as wide as its widest cell: the columns in
    ``left`` flush left, the others flush right, two spaces between, no trailing space."""
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    return ["  ".join(cell.ljust(w) if i in left else cell.rjust(w)
                      for i, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip()
            for row in table]
