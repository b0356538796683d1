"""The host side of the fork-server: start it inside bubblewrap, talk to it, restart it when dead.

One :class:`ForkServer` per sandbox instance (per xdist worker), started lazily.
With ``once=True`` every request starts a fresh bubblewrap whose server serves
that one request and exits (one process per execution, for comparison).
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import IO, Any

from ._bwrap import bwrap_argv
from ._files import remove_tree
from ._seccomp import filter_bpf

START_TIMEOUT_S = 30.0
REPLY_GRACE_S = 5.0
"""How long past the execution's own timeout we wait for the server before calling it dead."""


class ServerFault(RuntimeError):
    """The fork-server failed (not the code it ran)."""


class ForkServer:
    """A fork-server in its own bubblewrap sandbox, running as ``uid`` (None: as ourselves)."""

    def __init__(self, bwrap: str, interpreter: str, uid: int | None, *, once: bool) -> None:
        self.bwrap, self.interpreter, self.uid, self.once = bwrap, interpreter, uid, once
        # As root the work root is ours with 0711 (the sandbox's uid may cross it, not write it).
        self.root = Path(tempfile.mkdtemp(prefix="r2r-box-"))
        os.chmod(self.root, 0o711 if uid is not None else 0o700)
        self._proc: subprocess.Popen[bytes] | None = None
        self._pending = b""
        self.starts = 0

    def execute(self, request: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """Send one request and return the server's reply; :class:`ServerFault` on failure."""
        proc = self._proc if self._proc is not None and self._proc.poll() is None else None
        if proc is None:
            proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps(request).encode() + b"\n")
            proc.stdin.flush()
        except OSError as exc:
            self._stop()
            raise ServerFault(f"the fork-server is gone: {exc}") from exc
        reply = self._read_line(proc.stdout, timeout_s + REPLY_GRACE_S)
        if self.once:
            self._stop()
        if reply is None:
            self._stop()
            raise ServerFault("the fork-server did not answer (restarted)")
        if "error" in reply:
            raise ServerFault(f"the fork-server could not run it: {reply['error']}")
        return reply

    def _start(self) -> subprocess.Popen[bytes]:
        self._stop()
        server_fd = _memfd("r2r-server", resources.files(__package__)
                           .joinpath("_server_main.py").read_bytes())
        bpf = filter_bpf()
        seccomp_fd = _memfd("r2r-seccomp", bpf) if bpf is not None else None
        fds = (server_fd,) if seccomp_fd is None else (server_fd, seccomp_fd)
        log = open(self.root.parent / f"{self.root.name}.log", "wb")  # noqa: SIM115
        try:
            proc = subprocess.Popen(
                bwrap_argv(self.bwrap, self.interpreter, self.root, server_fd, seccomp_fd,
                           once=self.once),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, pass_fds=fds,
                env={}, cwd="/", start_new_session=True, user=self.uid, group=self.uid,
                extra_groups=[] if self.uid is not None else None,
            )
        finally:
            for fd in fds:
                os.close(fd)
            log.close()
        self._proc, self._pending = proc, b""
        self.starts += 1
        assert proc.stdout is not None
        ready = self._read_line(proc.stdout, START_TIMEOUT_S)
        if ready != {"ready": True}:
            self._stop()
            raise ServerFault(f"the fork-server did not start: {self._log_tail()}")
        return proc

    def _read_line(self, stream: IO[bytes], timeout_s: float) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout_s
        fd = stream.fileno()
        while b"\n" not in self._pending:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        try:
            found = json.loads(line)
        except ValueError:
            return None
        return found if isinstance(found, dict) else None

    def _log_tail(self) -> str:
        try:
            text = (self.root.parent / f"{self.root.name}.log").read_text(errors="replace")
        except OSError:
            return "no log"
        return (text.strip().splitlines() or ["no output"])[-1]

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        proc.wait()

    @property
    def pid(self) -> int | None:
        """The bwrap process's pid while the server runs (for tests)."""
        return self._proc.pid if self._proc is not None and self._proc.poll() is None else None

    def close(self) -> None:
        self._stop()
        remove_tree(self.root)
        try:
            os.unlink(self.root.parent / f"{self.root.name}.log")
        except OSError:
            pass


def _memfd(name: str, data: bytes) -> int:
    fd = os.memfd_create(name, 0)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
