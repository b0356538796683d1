"""One benchmark run, without pytest: :class:`Run` plans it from its settings, evaluates its
items (model, sandbox, judges) and keeps their results, then writes its outputs.

The pytest plugin is one user of it (its hooks adapt pytest's phases to a ``Run``); a script
is another (see ``docs/python-api.md``).
"""

from ._controller import Controller, OutputPaths, lost_item, stopped_warning
from ._evaluator import Evaluator
from ._run import Run, SubmissionResult

__all__ = [
    "Controller",
    "Evaluator",
    "OutputPaths",
    "Run",
    "SubmissionResult",
    "lost_item",
    "stopped_warning",
]
