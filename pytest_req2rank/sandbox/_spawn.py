"""One process per execution under ``unshare`` namespaces or rlimits alone: the weaker modes,
run only when named (``process:unshare``, ``process:rlimits``)."""

from __future__ import annotations

import ctypes
import math
import os
import resource
import select
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from ._base import PYTHON, ExecOutcome, ExecRequest, Limits
from ._bwrap import sandbox_env
from ._files import PathEscape, check_path, lay_out, read_back, read_head, read_tail, remove_tree
from ._launch import Launcher, detect_launcher, launcher_failed, trial_run

_LIBC = ctypes.CDLL(None, use_errno=True)
_PR_SET_PDEATHSIG = 1
_KILL_GRACE_S = 5.0
_MB = 1024 * 1024
_UNSHARE_SIGKILL = "unshare: sigprocmask unblock failed: Invalid argument\n"
"""What util-linux 2.38 ``unshare`` says (exit 1) when its child died of SIGKILL, a signal it
cannot re-raise on itself. Forging it gains nothing: both readings are a runtime error."""


class SpawnExecutor:
    """Each execution in its own process, started from an empty environment.

    Per execution: a fresh temporary work directory (files laid out with
    subdirectories; paths escaping it rejected) removed afterwards; rlimits on
    address space, CPU, processes, file size, open files, core=0; stdout and
    stderr to size-capped temp files, never pipes, so a daemon holding them cannot
    hang the host; a wait on a pidfd; at the wall timeout every process of the
    execution is killed. As root each execution gets its own pid and network
    namespace and its own unprivileged uid; see :mod:`._launch` for the modes.
    The work directory is a 0700 directory of the execution's uid inside a 0711
    root directory that also holds the output files.
    """

    def __init__(self, mode: Literal["unshare", "rlimits"]) -> None:
        self.launcher: Launcher = detect_launcher(mode)

    @property
    def mode(self) -> str:
        return self.launcher.mode

    @property
    def isolation(self) -> str:
        return self.launcher.isolation

    def run(self, request: ExecRequest) -> ExecOutcome:
        try:
            host_dir = Path(tempfile.mkdtemp(prefix="r2r-"))
        except OSError as exc:
            return ExecOutcome(error=f"cannot create the work directory: {exc}")
        try:
            return self._run_in(host_dir, request)
        except PathEscape as exc:
            return ExecOutcome(error=f"rejected: {exc}")
        except OSError as exc:
            return ExecOutcome(error=f"sandbox failure: {type(exc).__name__}: {exc}")
        finally:
            remove_tree(host_dir)

    def _run_in(self, host_dir: Path, request: ExecRequest) -> ExecOutcome:
        files = request.all_files()
        for name in (*files, *request.read_back):
            check_path(name)
        uid = self.launcher.pick_uid()
        os.chmod(host_dir, 0o711)
        work = host_dir / "work"
        work.mkdir(mode=0o700)
        lay_out(work, files, uid)
        (host_dir / "stdin").write_text(request.stdin, encoding="utf-8")
        limits = request.limits
        cpu_s = limits.cpu_s if limits.cpu_s is not None else request.timeout_s + 1.0
        argv = [*self.launcher.python(), *request.argv[1:]] if request.argv[:1] == (PYTHON,) \
            else list(request.argv)
        with (
            open(host_dir / "stdin", "rb") as stdin,
            open(host_dir / "stdout", "wb") as stdout,
            open(host_dir / "stderr", "wb") as stderr,
        ):
            started = time.perf_counter()
            proc = subprocess.Popen(
                self.launcher.wrap(argv, uid), stdin=stdin, stdout=stdout, stderr=stderr,
                cwd=work, env=sandbox_env(str(work)), close_fds=True,
                start_new_session=self.launcher.mode == "rlimits",
                preexec_fn=_limiter(limits, cpu_s),  # noqa: PLW1509 - see _limiter
            )
            timed_out = not _wait(proc, request.timeout_s)
            if timed_out:
                self._kill(proc)
            returncode = proc.wait()
            if self.launcher.mode == "rlimits":
                _signal_group(proc.pid)  # what the main process left behind
            duration = time.perf_counter() - started
        cap = limits.output_bytes
        out, out_cut = read_head(host_dir / "stdout", cap)
        err, err_cut = read_tail(host_dir / "stderr", cap)
        if returncode == 1 and err.endswith(_UNSHARE_SIGKILL) and self.launcher.mode != "rlimits":
            returncode, err = -signal.SIGKILL, err.removesuffix(_UNSHARE_SIGKILL)
        outcome = ExecOutcome(
            exit_code=returncode if returncode >= 0 else None,
            signal=-returncode if returncode < 0 else None,
            stdout=out, stderr=err, timed_out=timed_out,
            output_truncated=out_cut or err_cut, duration_s=duration,
            files=read_back(work, request.read_back, cap),
        )
        if launcher_failed(outcome.exit_code, err):
            outcome.error = self._launcher_broken(err)
        return outcome

    def _launcher_broken(self, stderr: str) -> str | None:
        """Confirm a launcher failure with a trial run: the code under test may just print alike."""
        failures: list[str] = []
        if trial_run(self.launcher, self.launcher.version.rsplit(".", 1)[0], failures):
            return None
        return f"the launcher failed: {stderr.strip().splitlines()[0]} ({failures[0]})"

    def _kill(self, proc: subprocess.Popen[bytes]) -> None:
        """Kill the execution's every process; return once they are gone."""
        if self.launcher.mode == "rlimits":
            _signal_group(proc.pid)
            return
        # The launcher is stopped so it cannot fork its child after we looked for it.
        _signal(proc.pid, signal.SIGSTOP)
        inits = _children(proc.pid)
        pidfds = [fd for fd in map(_pidfd, inits) if fd is not None]
        for pid in inits:
            _signal(pid, signal.SIGKILL)
        # The first process of a pid namespace exits only after all the others are gone.
        deadline = time.monotonic() + _KILL_GRACE_S
        for fd in pidfds:
            select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            os.close(fd)
        _signal(proc.pid, signal.SIGKILL)


def _limiter(limits: Limits, cpu_s: float) -> Callable[[], None]:
    """The rlimits and parent-death signal, set in the child before exec.

    Only C-level calls after the fork (measured: no slower than running ``prlimit``),
    so the threads caveat of ``preexec_fn`` (a lock held by another thread) does not bite.
    """
    values = {
        resource.RLIMIT_AS: limits.memory_mb * _MB,
        resource.RLIMIT_CPU: max(1, math.ceil(cpu_s)),
        resource.RLIMIT_NPROC: limits.processes,
        resource.RLIMIT_FSIZE: max(limits.file_size_mb * _MB, limits.output_bytes + 1),
        resource.RLIMIT_NOFILE: limits.open_files,
        resource.RLIMIT_CORE: 0,
    }

    def apply() -> None:  # runs in the child between fork and exec
        for which, value in values.items():
            # A hard CPU limit above the soft one: SIGXCPU (a timeout) comes before SIGKILL.
            hard = value + 1 if which == resource.RLIMIT_CPU else value
            resource.setrlimit(which, (value, hard))
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)

    return apply


def _wait(proc: subprocess.Popen[bytes], timeout_s: float) -> bool:
    """Wait for ``proc`` to exit, up to ``timeout_s``; True when it did."""
    fd = os.pidfd_open(proc.pid)
    try:
        ready, _, _ = select.select([fd], [], [], timeout_s)
    finally:
        os.close(fd)
    return bool(ready)


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(field) for field in text.split()]


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except OSError:
        return None


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _signal_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
