"""Errors raised while loading a suite."""

from __future__ import annotations

from ..errors import ConfigurationError


class SuiteError(ConfigurationError, ValueError):
    """A suite that cannot be loaded; the message is one line: where, what, how to fix."""


class SeedLibraryError(SuiteError):
    """The dynamic suite's seed library cannot be used: missing, empty, or a seed file is wrong."""
