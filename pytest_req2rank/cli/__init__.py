"""The ``req2rank`` console script: past runs from the store (``runs``, ``show``,
``compare``), their ranking (``rank``), planning a run's size (``plan``) and their reports
(``report``)."""

from ._app import main
from ._command import CommandError
from ._history import compared_models

__all__ = ["CommandError", "compared_models", "main"]
