"""The ``process`` backend: executions as local processes, no daemon needed.

Modes: ``forkserver`` (the default, ``auto``) — bubblewrap + seccomp with a warm
interpreter that forks one child per execution (:mod:`._boxed`); ``bwrap`` — the
same sandbox, started afresh for every execution. Both give every execution a
filesystem view of its own. ``auto`` fails closed: when bubblewrap cannot build a
sandbox here, constructing the sandbox raises :class:`SandboxUnavailable` rather
than running code with less. The weaker modes run only when named: ``unshare`` —
pid, network and ipc namespaces but the host's filesystem; ``rlimits`` — limits
alone. Their isolation line starts with a WARNING.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from ..models import IsolationLevel, ProcessMode
from ._base import ExecOutcome, ExecRequest, Sandbox, SandboxUnavailable
from ._boxed import BwrapExecutor
from ._bwrap import sandbox_env
from ._bwrap_binary import ENV_OVERRIDE, BwrapUnavailable
from ._files import PathEscape
from ._spawn import SpawnExecutor

__all__ = ["ProcessSandbox", "sandbox_env", "unavailable"]


def unavailable(reason: OSError) -> SandboxUnavailable:
    """The one-line refusal when no mode with filesystem isolation works here: what is
    missing, how to enable isolation, and how to opt in to a weaker mode by name."""
    if isinstance(reason, BwrapUnavailable):
        enable = (
            "allow unprivileged user namespaces (Ubuntu 23.10+: sysctl "
            "kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile giving bwrap "
            "userns; elsewhere: sysctl user.max_user_namespaces=10000, and "
            "kernel.unprivileged_userns_clone=1 where that exists; in a container: a seccomp "
            f"profile that permits them), or set {ENV_OVERRIDE} to a bwrap that works here"
        )
    else:
        version = f"{sys.version_info[0]}.{sys.version_info[1]}"
        enable = (f"install python{version} under /usr (the distribution's package): the "
                  "sandbox shows executions /usr only")
    return SandboxUnavailable(
        f"sandbox: no sandbox with filesystem isolation can run here, so no model code will "
        f"run ({reason}). To enable one: {enable}. Or accept weaker isolation by naming it: "
        f"--r2r-sandbox=process:unshare (namespaces, no filesystem isolation) or "
        f"--r2r-sandbox=process:rlimits (limits only)"
    )


class ProcessSandbox(Sandbox):
    """Runs each execution as a local process under the isolation named by :attr:`mode`."""

    name = "process"

    def __init__(self, *, mode: ProcessMode = "auto", servers: int | None = None) -> None:
        """``servers``: most fork-servers run at once (concurrent :meth:`run` calls), default
        one per CPU; the other modes start a process per execution anyway.
        :class:`SandboxUnavailable` when ``mode`` cannot run here."""
        self._executor: BwrapExecutor | SpawnExecutor
        try:
            if mode in ("auto", "forkserver", "bwrap"):
                self._executor = BwrapExecutor(once=mode == "bwrap", servers=servers)
            else:
                self._executor = SpawnExecutor("rlimits" if mode == "rlimits" else "unshare")
        except OSError as exc:
            if mode in ("unshare", "rlimits"):
                raise SandboxUnavailable(
                    f"sandbox: process:{mode} cannot run here: {exc}") from None
            raise unavailable(exc) from None
        self.warm_modules = self._executor.mode == "forkserver"

    @property
    def mode(self) -> str:
        """The isolation level in force: forkserver, bwrap, namespaces, userns or rlimits."""
        return self._executor.mode

    @property
    def isolation(self) -> str:
        return self._executor.isolation

    @property
    def isolation_level(self) -> IsolationLevel:
        mode = self._executor.mode
        if mode in ("forkserver", "bwrap"):
            return "full"
        return "rlimits" if mode == "rlimits" else "namespaces"

    def run(self, request: ExecRequest) -> ExecOutcome:
        if isinstance(self._executor, BwrapExecutor):
            try:
                return self._executor.run(request)
            except PathEscape as exc:
                return ExecOutcome(error=f"rejected: {exc}")
            except OSError as exc:
                return ExecOutcome(error=f"sandbox failure: {type(exc).__name__}: {exc}")
        return self._executor.run(request)

    def prestart(self) -> None:
        if isinstance(self._executor, BwrapExecutor):
            self._executor.prestart()

    def close(self) -> None:
        if isinstance(self._executor, BwrapExecutor):
            self._executor.close()

    @property
    def work_root(self) -> Path:
        """This instance's directory on the host (for tests): the servers' logs, or where
        the work directories of the other modes are made."""
        if isinstance(self._executor, BwrapExecutor):
            return self._executor.logs
        return Path(tempfile.gettempdir())
