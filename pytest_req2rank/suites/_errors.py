"""Errors raised while loading a suite."""

from __future__ import annotations


class SuiteError(ValueError):
    """A suite that cannot be loaded; the message is one line: where, what, how to fix."""
