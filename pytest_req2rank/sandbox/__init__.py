"""Running untrusted code: the :class:`Sandbox` interface and its backends."""

from ._base import PYTHON, ExecOutcome, ExecRequest, Limits, Sandbox, SandboxUnavailable
from ._files import PathEscape, check_path
from ._process import ProcessSandbox
from ._registry import create_sandbox
from ._turns import TakingTurns
from ._wrapper import SandboxWrapper

__all__ = [
    "PYTHON",
    "ExecOutcome",
    "ExecRequest",
    "Limits",
    "PathEscape",
    "ProcessSandbox",
    "Sandbox",
    "SandboxUnavailable",
    "SandboxWrapper",
    "TakingTurns",
    "check_path",
    "create_sandbox",
]
