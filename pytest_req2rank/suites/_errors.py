"""Errors raised while loading a suite."""

from __future__ import annotations

from ..errors import ConfigurationError


class SuiteError(ConfigurationError, ValueError):
    """A suite that cannot be loaded; the message is one line: where, what, how to fix."""


class TemplateLibraryError(SuiteError):
    """The dynamic suite's template library cannot be used: missing, empty, or a template file
    is wrong."""
