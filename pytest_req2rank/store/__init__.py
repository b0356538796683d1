"""Local SQLite store of runs and items.

:class:`Store` (sqlite-utils) is imported on first use: :func:`check_store` runs on the
controller at start, where importing sqlite-utils would delay the run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._check import StoreUnusable, check_store, directory_problem

if TYPE_CHECKING:
    from ._history import History
    from ._sqlite import Store

__all__ = [
    "History",
    "Store",
    "StoreUnusable",
    "check_store",
    "directory_problem",
]


def __getattr__(name: str) -> Any:
    if name == "Store":  # sqlite-utils loads when the store is first opened, not at start-up
        from ._sqlite import Store

        return Store
    if name == "History":  # read-only, for looking back at past runs
        from ._history import History

        return History
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
