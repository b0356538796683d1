"""pytest-req2rank: rank LLMs by how well they turn requirements into working code."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("pytest-req2rank")
except PackageNotFoundError:  # running from a checkout without installation
    __version__ = "0.0.0"

__all__ = ["__version__"]
