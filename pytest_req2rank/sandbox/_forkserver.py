"""The host side of the fork-server: start it inside bubblewrap, talk to it, restart it when dead.

A sandbox instance keeps one :class:`ForkServer` per concurrent execution (one per
xdist worker in a plain run), each started lazily. With ``once=True`` every request
starts a fresh bubblewrap whose server serves that one request and exits (one
process per execution, for comparison). The host keeps only the server's log; the
executions' files live inside the sandbox.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any

from .. import sandboxed
from ..errors import Req2RankError
from ._base import ExecOutcome
from ._bwrap import bwrap_argv
from ._seccomp import filter_bpf

START_TIMEOUT_S = 30.0
REPLY_GRACE_S = 5.0
"""How long past the execution's own timeout we wait for the server before calling it dead."""
READ_BYTES = 1 << 20
HEADER_DIGITS = 16
"""A request starts with its header's length in this many decimal digits."""
_SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="r2r-forkserver-start")
"""Starts every server. bwrap's ``--die-with-parent`` fires when the *thread* that started
it ends: a server started from a short-lived thread (a pool's) would die with that thread."""


class ServerFault(Req2RankError, RuntimeError):
    """The fork-server failed (not the code it ran)."""


class ForkServer:
    """A fork-server in its own bubblewrap sandbox, running as ``uid`` (None: as ourselves)."""

    def __init__(self, bwrap: str, interpreter: str, uid: int | None, log: Path, *,
                 once: bool) -> None:
        self.bwrap, self.interpreter, self.uid, self.once = bwrap, interpreter, uid, once
        self.log = log
        self._proc: subprocess.Popen[bytes] | None = None
        self._pending = bytearray()
        self._warm: dict[str, str] = {}
        """The helper modules the running server has imported."""
        self.starts = 0

    def execute(self, header: dict[str, Any], payload: bytes, modules: dict[str, str],
                timeout_s: float) -> tuple[dict[str, Any], list[bytes]]:
        """Send one request; the server's reply and the raw parts it announced (stdout,
        stderr, the files read back). :class:`ServerFault` when the server failed."""
        proc = self.start()
        assert proc.stdin is not None and proc.stdout is not None
        sent = {name: None if self._warm.get(name) == source else source
                for name, source in modules.items()}
        data = json.dumps({**header, "payload": len(payload), "modules": sent}).encode()
        try:
            proc.stdin.write(f"{len(data):0{HEADER_DIGITS}d}".encode() + data + payload)
            proc.stdin.flush()
        except OSError as exc:
            self._stop()
            raise ServerFault(f"the fork-server is gone: {exc}") from exc
        deadline = time.monotonic() + timeout_s + REPLY_GRACE_S
        reply = self._read_line(proc.stdout, deadline)
        if reply is not None and "error" in reply:
            if self.once:
                self._stop()
            raise ServerFault(f"the fork-server could not run it: {reply['error']}")
        parts = None if reply is None else self._read_parts(proc.stdout, _sizes(reply), deadline)
        if self.once or reply is None or parts is None:
            self._stop()
        if reply is None or parts is None:
            raise ServerFault("the fork-server did not answer (restarted)")
        self._warm.update(modules)
        return reply, parts

    def start(self) -> subprocess.Popen[bytes]:
        """The running server, started first if it is not running; :class:`ServerFault`
        when it cannot start."""
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        return self._start()

    def _start(self) -> subprocess.Popen[bytes]:
        self._stop()
        server_fd = _memfd("r2r-server", sandboxed.source("forkserver").encode())
        bpf = filter_bpf()
        seccomp_fd = _memfd("r2r-seccomp", bpf) if bpf is not None else None
        fds = (server_fd,) if seccomp_fd is None else (server_fd, seccomp_fd)
        log = open(self.log, "wb")  # noqa: SIM115
        try:
            proc = _SPAWNER.submit(
                subprocess.Popen,
                bwrap_argv(self.bwrap, self.interpreter, server_fd, seccomp_fd, once=self.once),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, pass_fds=fds,
                env={}, cwd="/", start_new_session=True, user=self.uid, group=self.uid,
                extra_groups=[] if self.uid is not None else None,
            ).result()
        finally:
            for fd in fds:
                os.close(fd)
            log.close()
        self._proc, self._pending, self._warm = proc, bytearray(), {}
        self.starts += 1
        assert proc.stdout is not None
        ready = self._read_line(proc.stdout, time.monotonic() + START_TIMEOUT_S)
        if ready != {"ready": True}:
            self._stop()
            raise ServerFault(f"the fork-server did not start: {self._log_tail()}")
        return proc

    def _read_line(self, stream: IO[bytes], deadline: float) -> dict[str, Any] | None:
        end = self._fill(stream, deadline, lambda data, start: data.find(b"\n", start))
        if end is None:
            return None
        line, self._pending = bytes(self._pending[:end]), self._pending[end + 1:]
        try:
            found = json.loads(line)
        except ValueError:
            return None
        return found if isinstance(found, dict) else None

    def _read_parts(self, stream: IO[bytes], sizes: list[int] | None,
                    deadline: float) -> list[bytes] | None:
        if sizes is None:
            return None
        total = sum(sizes)
        if self._fill(stream, deadline, lambda data, _: -1 if len(data) < total else 0) is None:
            return None
        data, self._pending = self._pending[:total], self._pending[total:]
        parts, offset = [], 0
        for size in sizes:
            parts.append(bytes(data[offset:offset + size]))
            offset += size
        return parts

    def _fill(self, stream: IO[bytes], deadline: float,
              done: Callable[[bytearray, int], int]) -> int | None:
        """Read until ``done(buffer, where new data starts)`` is not -1; its value, or None
        at the deadline or the stream's end."""
        pending = self._pending
        found = done(pending, 0)
        fd = stream.fileno()
        while found < 0:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                return None
            chunk = os.read(fd, READ_BYTES)
            if not chunk:
                return None
            start = len(pending)
            pending += chunk
            found = done(pending, start)
        return found

    def _log_tail(self) -> str:
        try:
            text = self.log.read_text(errors="replace")
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


def reply_outcome(reply: dict[str, Any], parts: list[bytes], server: str) -> ExecOutcome:
    """The outcome of one execution from a fork-server's reply and the parts after it
    (stdout, stderr, then the files read back); a malformed reply is ``server``'s failure."""
    try:
        stdout, stderr, *files = (part.decode("utf-8", errors="replace") for part in parts)
        returncode = os.waitstatus_to_exitcode(reply["status"])
        return ExecOutcome(
            exit_code=returncode if returncode >= 0 else None,
            signal=-returncode if returncode < 0 else None,
            stdout=stdout, stderr=stderr, timed_out=reply["timed_out"],
            output_truncated=reply["truncated"], duration_s=reply["duration_s"],
            files={key: text for (key, _), text in zip(reply["files"], files)},
        )
    except (KeyError, TypeError, ValueError) as exc:
        return ExecOutcome(error=f"{server} sent a malformed reply: {exc}")


def _sizes(reply: dict[str, Any]) -> list[int] | None:
    """Byte counts of the parts after a reply (stdout, stderr, files); None if malformed."""
    try:
        sizes = [*reply["sizes"], *(size for _, size in reply["files"])]
    except (KeyError, TypeError, ValueError):
        return None
    return sizes if all(type(size) is int and size >= 0 for size in sizes) else None


def _memfd(name: str, data: bytes) -> int:
    fd = os.memfd_create(name, 0)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
