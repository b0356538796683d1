"""pytest-req2rank: rank LLMs by how well they turn requirements into working code."""

from ._unrewritten import leave_unrewritten

leave_unrewritten(__name__)

__version__ = "0.1.0"
"""The plugin's version (the package metadata reads it from here)."""

__all__ = ["__version__"]
