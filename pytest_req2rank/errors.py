"""The package's exceptions: one root, and a branch for what is wrong before any item runs."""

from __future__ import annotations


class Req2RankError(Exception):
    """The root of every exception req2rank raises on purpose."""


class ConfigurationError(Req2RankError):
    """A problem found before the first item runs: an option, a file, a sandbox backend, a
    provider. The message is one line saying what is wrong, where, and how to fix it; the
    plugin turns it into a pytest usage error (exit code 4, no traceback)."""
