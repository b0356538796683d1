"""The ``req2rank`` console script: past runs from the store (``runs``, ``show``,
``compare``), their ranking (``rank``), planning a run's size (``plan``) and their reports
(``report``)."""

from ._app import COMMANDS, build_parser, main
from ._command import Command, CommandError

__all__ = ["COMMANDS", "Command", "CommandError", "build_parser", "main"]
