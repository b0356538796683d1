"""The ``process`` backend: the strongest isolation this machine offers, no daemon needed.

Levels, best first (``mode="auto"`` takes the first that works here):
``forkserver`` — bubblewrap + seccomp with a warm interpreter that forks one child
per execution (:mod:`._boxed`); ``bwrap`` — the same sandbox, started afresh for
every execution; ``namespaces``/``userns`` — ``unshare`` (no filesystem view of
its own); ``rlimits`` — a last resort, announced with a WARNING.
"""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path
from typing import Literal

from ..models import IsolationLevel
from ._base import ExecOutcome, ExecRequest, Sandbox
from ._boxed import BwrapRunner
from ._bwrap import sandbox_env
from ._files import PathEscape
from ._spawn import SpawnRunner

Mode = Literal["auto", "forkserver", "bwrap", "unshare", "rlimits"]
MODES: tuple[Mode, ...] = ("auto", "forkserver", "bwrap", "unshare", "rlimits")

__all__ = ["MODES", "Mode", "ProcessSandbox", "sandbox_env"]


class ProcessSandbox(Sandbox):
    """Runs each execution as a local process under the isolation named by :attr:`mode`."""

    name = "process"

    def __init__(self, *, mode: Mode = "auto", servers: int | None = None) -> None:
        """``servers``: most fork-servers run at once (concurrent :meth:`run` calls), default
        one per CPU; the other modes start a process per execution anyway."""
        self._runner: BwrapRunner | SpawnRunner
        fallback = ""
        if mode in ("auto", "forkserver", "bwrap"):
            try:
                self._runner = BwrapRunner(once=mode == "bwrap", servers=servers)
            except OSError as exc:
                if mode != "auto":
                    raise
                fallback = f" (bubblewrap unavailable: {exc})"
                self._runner = SpawnRunner("auto")
        else:
            self._runner = SpawnRunner("rlimits" if mode == "rlimits" else "auto")
        self._fallback = fallback
        self.warm_modules = self._runner.mode == "forkserver"
        if self._runner.mode == "rlimits":
            warnings.warn(f"sandbox: {self.isolation}", RuntimeWarning, stacklevel=2)

    @property
    def mode(self) -> str:
        """The isolation level in force: forkserver, bwrap, namespaces, userns or rlimits."""
        return self._runner.mode

    @property
    def isolation(self) -> str:
        return self._runner.isolation + self._fallback

    @property
    def isolation_level(self) -> IsolationLevel:
        mode = self._runner.mode
        if mode in ("forkserver", "bwrap"):
            return "full"
        return "rlimits" if mode == "rlimits" else "namespaces"

    def run(self, request: ExecRequest) -> ExecOutcome:
        if isinstance(self._runner, BwrapRunner):
            try:
                return self._runner.run(request)
            except PathEscape as exc:
                return ExecOutcome(error=f"rejected: {exc}")
            except OSError as exc:
                return ExecOutcome(error=f"sandbox failure: {type(exc).__name__}: {exc}")
        return self._runner.run(request)

    def prestart(self) -> None:
        if isinstance(self._runner, BwrapRunner):
            self._runner.prestart()

    def close(self) -> None:
        if isinstance(self._runner, BwrapRunner):
            self._runner.close()

    @property
    def work_root(self) -> Path:
        """This instance's directory on the host (for tests): the servers' logs, or where
        the work directories of the other modes are made."""
        if isinstance(self._runner, BwrapRunner):
            return self._runner.logs
        return Path(tempfile.gettempdir())
