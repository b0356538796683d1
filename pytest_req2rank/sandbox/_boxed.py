"""Executions inside bubblewrap: warm fork-servers (default) or one sandbox per execution."""

from __future__ import annotations

import marshal
import math
import os
import secrets
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from ._base import PYTHON, ExecOutcome, ExecRequest, Limits
from ._bwrap import WORK_DIR, sandbox_env, usr_interpreter
from ._bwrap_binary import Bwrap, find_bwrap
from ._files import PathEscape, check_path
from ._forkserver import ForkServer, ServerFault, reply_outcome
from ._launch import UID_BASE, UID_SPAN
from ._seccomp import filter_bpf

_MB = 1024 * 1024


class BwrapExecutor:
    """Runs requests through :class:`ForkServer` s; ``once`` starts a sandbox per execution.

    Concurrent :meth:`run` calls each get a server of their own, up to ``servers``
    (default: one per CPU), started when first needed; executions never share a
    sandbox. As root every server runs as a fresh uid drawn for it (never 0, so
    RLIMIT_NPROC holds); otherwise as the caller, inside a user namespace. Raises
    ``OSError`` when no bwrap can build a sandbox here (:mod:`._bwrap_binary`) or no
    interpreter lives under /usr.
    """

    def __init__(self, *, once: bool = False, servers: int | None = None) -> None:
        interpreter = usr_interpreter()
        if interpreter is None:
            raise OSError("no interpreter of this Python version under /usr")
        self.as_root = os.geteuid() == 0
        self.binary: Bwrap = find_bwrap(self._uid())
        self.bwrap, self.once, self.interpreter = self.binary.path, once, interpreter
        self.seccomp = filter_bpf() is not None
        self.size = servers or os.cpu_count() or 1
        self.logs = Path(tempfile.mkdtemp(prefix="r2r-box-"))
        self.servers: list[ForkServer] = []
        self._idle: list[ForkServer] = []
        self._changed = threading.Condition()
        self._prestarting = False

    @property
    def mode(self) -> str:
        return "bwrap" if self.once else "forkserver"

    @property
    def isolation(self) -> str:
        who = "a fresh uid per server (dropped from root)" if self.as_root else "own uid"
        how = "one sandbox per run" if self.once else "fork-server"
        seccomp = ("seccomp" if self.seccomp else
                   "WARNING no seccomp filter (pip install pyseccomp; needs libseccomp2)")
        return (f"process: bubblewrap {how}, {self.binary.description}; user, pid, network "
                f"(none), ipc namespaces; read-only /usr only, private work dir; {who}; "
                f"{seccomp}; rlimits, empty env; {self.interpreter}")

    def run(self, request: ExecRequest) -> ExecOutcome:
        header, payload, modules = self._request(request)
        server = self._acquire()
        try:
            reply, parts = server.execute(header, payload, modules, request.timeout_s)
        except ServerFault as exc:
            return ExecOutcome(error=str(exc))
        finally:
            self._release(server)
        return reply_outcome(reply, parts, "the fork-server")

    def prestart(self) -> None:
        """Start one fork-server on a background thread (no-op with ``once`` or when one
        exists): it is warm when the first execution asks for one, and an execution that
        asks while it starts waits for it rather than starting another."""
        with self._changed:
            if self.once or self.servers:
                return
            server = self._new_server()
            self._prestarting = True

        def start() -> None:
            try:
                server.start()
            except (ServerFault, OSError):
                pass  # the first execution starts it again and reports why it cannot
            finally:
                with self._changed:  # every waiter: one takes it, another may start its own
                    self._prestarting = False
                    self._idle.append(server)
                    self._changed.notify_all()

        threading.Thread(target=start, name="r2r-forkserver-prestart", daemon=True).start()

    def _request(self, request: ExecRequest) -> tuple[dict[str, Any], bytes, dict[str, str]]:
        """The server's header, payload and helper modules; :class:`PathEscape` for a path or
        module name that escapes."""
        files, modules = (request.all_files(), {}) if self.once else (request.files,
                                                                      request.modules)
        for name in modules:
            if not name.isidentifier():
                raise PathEscape(f"module name {name!r} is not an identifier")
        argv, script = self._argv(request.argv)
        header = {"timeout_s": request.timeout_s,
                  "limits": rlimits(request.limits, request.timeout_s),
                  "read_back": [[name, check_path(name)] for name in request.read_back],
                  "output_bytes": request.limits.output_bytes}
        payload = marshal.dumps({
            "files": {check_path(name): text for name, text in files.items()},
            "stdin": request.stdin.encode(), "argv": argv, "script": script,
            "env": sandbox_env(WORK_DIR),  # what the server has: the child keeps it
        })
        return header, payload, modules

    def _argv(self, argv: tuple[str, ...]) -> tuple[list[str], str | None]:
        """The child's argv, and the script to run in the warm interpreter (None: exec argv)."""
        if argv[:1] != (PYTHON,):
            return list(argv), None
        if len(argv) > 1 and not argv[1].startswith("-"):
            return [self.interpreter, *argv[1:]], check_path(argv[1])
        return [self.interpreter, "-S", "-B", *argv[1:]], None

    def _uid(self) -> int | None:
        return UID_BASE + secrets.randbelow(UID_SPAN) if self.as_root else None

    def _acquire(self) -> ForkServer:
        with self._changed:
            while not self._idle and (self._prestarting or len(self.servers) >= self.size):
                self._changed.wait()
            if self._idle:
                return self._idle.pop()
            return self._new_server()

    def _new_server(self) -> ForkServer:
        """A new server, counted in :attr:`servers` (the caller holds the lock)."""
        server = ForkServer(self.bwrap, self.interpreter, self._uid(),
                            self.logs / f"server-{len(self.servers)}.log", once=self.once)
        self.servers.append(server)
        return server

    def _release(self, server: ForkServer) -> None:
        with self._changed:
            self._idle.append(server)
            self._changed.notify()

    def close(self) -> None:
        with self._changed:
            for server in self.servers:
                server.close()
            self.servers.clear()
            self._idle.clear()
        shutil.rmtree(self.logs, ignore_errors=True)


def rlimits(limits: Limits, timeout_s: float) -> dict[str, int]:
    """The rlimits of one execution, by ``resource`` constant name."""
    cpu_s = limits.cpu_s if limits.cpu_s is not None else timeout_s + 1.0
    return {
        "RLIMIT_AS": limits.memory_mb * _MB,
        "RLIMIT_CPU": max(1, math.ceil(cpu_s)),
        "RLIMIT_NPROC": limits.processes + 1,  # the server counts: it shares the uid
        "RLIMIT_FSIZE": max(limits.file_size_mb * _MB, limits.output_bytes + 1),
        "RLIMIT_NOFILE": limits.open_files,
        "RLIMIT_CORE": 0,
        "RLIMIT_MSGQUEUE": 0,  # POSIX message queues would outlive the run in the server's ipc ns
    }
