"""pytest-req2rank: rank LLMs by how well they turn requirements into working code.

PYTEST_DONT_REWRITE: pytest's documented marker; its in-process runs (pytester) then do not
warn that this package was imported before they could rewrite it.
"""

__version__ = "0.1.0"
"""The plugin's version (the package metadata reads it from here)."""

__all__ = ["__version__"]
