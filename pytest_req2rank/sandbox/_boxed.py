"""Executions inside bubblewrap: a warm fork-server (default) or one sandbox per execution."""

from __future__ import annotations

import math
import os
import secrets
import threading
from pathlib import Path
from typing import Any

from ._base import PYTHON, ExecOutcome, ExecRequest, Limits
from ._bwrap import SANDBOX_ENV, SANDBOX_ROOT, find_bwrap, probe, usr_interpreter
from ._files import check_path, lay_out, read_back, read_head, read_tail, remove_tree
from ._forkserver import ForkServer, ServerFault
from ._launch import UID_BASE, UID_SPAN
from ._seccomp import filter_bpf

_MB = 1024 * 1024


class BwrapRunner:
    """Runs requests through a :class:`ForkServer`; ``once`` starts a sandbox per execution.

    As root the sandbox runs as a fresh uid drawn for this instance (never 0, so
    RLIMIT_NPROC holds and the work root is private to it); otherwise as the
    caller, inside a user namespace. Raises ``OSError`` when bubblewrap, an
    interpreter under /usr, or a working user namespace is missing.
    """

    def __init__(self, *, once: bool = False) -> None:
        bwrap, interpreter = find_bwrap(), usr_interpreter()
        if bwrap is None:
            raise OSError("bubblewrap is not installed (apt-get install bubblewrap)")
        if interpreter is None:
            raise OSError("no interpreter of this Python version under /usr")
        uid = UID_BASE + secrets.randbelow(UID_SPAN) if os.geteuid() == 0 else None
        failure = probe(bwrap, uid)
        if failure is not None:
            raise OSError(f"bubblewrap cannot build a sandbox here: {failure}")
        self.once, self.uid, self.interpreter = once, uid, interpreter
        self.seccomp = filter_bpf() is not None
        self.server = ForkServer(bwrap, interpreter, uid, once=once)
        self._lock = threading.Lock()

    @property
    def mode(self) -> str:
        return "bwrap" if self.once else "forkserver"

    @property
    def isolation(self) -> str:
        who = f"uid {self.uid} (dropped from root)" if self.uid is not None else "own uid"
        how = "one sandbox per run" if self.once else "fork-server"
        seccomp = ("seccomp" if self.seccomp else
                   "WARNING no seccomp filter (pip install pyseccomp; needs libseccomp2)")
        return (f"process: bubblewrap {how}; user, pid, network (none), ipc namespaces; "
                f"read-only /usr only, private work dir; {who}; {seccomp}; rlimits, empty env; "
                f"{self.interpreter}")

    def run(self, request: ExecRequest) -> ExecOutcome:
        for name in (*request.files, *request.read_back):
            check_path(name)
        with self._lock:
            name = secrets.token_hex(8)
            host_run = self.server.root / name
            try:
                return self._run_in(host_run, name, request)
            except ServerFault as exc:
                return ExecOutcome(error=str(exc))
            finally:
                for entry in os.scandir(self.server.root):  # the run's and anything it left
                    if entry.is_dir(follow_symlinks=False):
                        remove_tree(Path(entry.path))
                    else:
                        os.unlink(entry.path)

    def _run_in(self, host_run: Path, name: str, request: ExecRequest) -> ExecOutcome:
        inside = f"{SANDBOX_ROOT}/{name}"
        work = host_run / "work"
        # As root the run directory stays ours (0711): only work/ and the output files are
        # the execution's. Without root everything is the caller's, and wiped after the run.
        host_run.mkdir(mode=0o711 if self.uid is not None else 0o700)
        work.mkdir(mode=0o700)
        (host_run / "stdin").write_text(request.stdin, encoding="utf-8")
        for output in ("stdout", "stderr"):
            (host_run / output).touch(mode=0o600)
            if self.uid is not None:
                os.chown(host_run / output, self.uid, self.uid)
        lay_out(work, request.files, self.uid)
        argv, script = self._argv(request.argv, f"{inside}/work")
        payload: dict[str, Any] = {
            "dir": inside, "argv": argv, "script": script, "timeout_s": request.timeout_s,
            "limits": rlimits(request.limits, request.timeout_s),
            "env": {**SANDBOX_ENV, "HOME": f"{inside}/work"},
        }
        reply = self.server.execute(payload, request.timeout_s)
        cap = request.limits.output_bytes
        out, out_cut = _read(host_run / "stdout", cap, read_head)
        err, err_cut = _read(host_run / "stderr", cap, read_tail)
        returncode = os.waitstatus_to_exitcode(reply["status"])
        return ExecOutcome(
            exit_code=returncode if returncode >= 0 else None,
            signal=-returncode if returncode < 0 else None,
            stdout=out, stderr=err, timed_out=bool(reply["timed_out"]),
            output_truncated=out_cut or err_cut, duration_s=float(reply["duration_s"]),
            files=read_back(work, request.read_back, cap),
        )

    def _argv(self, argv: tuple[str, ...], work: str) -> tuple[list[str], str | None]:
        """The child's argv, and the script to run in the warm interpreter (None: exec argv)."""
        if argv[:1] != (PYTHON,):
            return list(argv), None
        if len(argv) > 1 and not argv[1].startswith("-"):
            return [self.interpreter, *argv[1:]], check_path(argv[1])
        return [self.interpreter, "-S", "-B", *argv[1:]], None

    def close(self) -> None:
        self.server.close()


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
    }


def _read(path: Path, cap: int, reader: Any) -> tuple[str, bool]:
    try:
        return reader(path, cap)  # type: ignore[no-any-return]
    except FileNotFoundError:
        return "", False
