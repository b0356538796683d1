"""Local SQLite store of runs and items."""

from ._sqlite import Store

__all__ = ["Store"]
