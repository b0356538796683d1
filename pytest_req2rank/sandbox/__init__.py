"""Running untrusted code: the :class:`Sandbox` interface and its backends."""

from ._base import PYTHON, ExecOutcome, ExecRequest, Limits, Sandbox, SandboxUnavailable
from ._files import PathEscape, check_path
from ._process import MODES, ProcessSandbox, sandbox_env
from ._registry import BACKENDS, backend_from_env, check_backend, create_sandbox

__all__ = [
    "BACKENDS",
    "MODES",
    "PYTHON",
    "ExecOutcome",
    "ExecRequest",
    "Limits",
    "PathEscape",
    "ProcessSandbox",
    "Sandbox",
    "SandboxUnavailable",
    "backend_from_env",
    "check_backend",
    "check_path",
    "create_sandbox",
    "sandbox_env",
]
