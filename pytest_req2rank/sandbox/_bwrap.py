"""The bubblewrap command line: what an execution sees of the host, and as whom it runs.

The view: ``/usr`` read-only (with the merged-``/usr`` symlinks ``/bin``, ``/lib``,
``/lib64``), a fresh ``/proc`` of its own pid namespace, a minimal read-only ``/dev``
with a small private ``/dev/shm``, a small private ``/tmp``, the work directory
``/sandbox`` (a small tmpfs of its own: the fork-server writes the execution's files
there) and the server script read-only — nothing else: no ``/etc``, ``/home``,
``/root``, checkout, suite files or host directories at all; the root itself is
read-only. ``/sandbox``, ``/tmp`` and ``/dev/shm`` are emptied after every execution.
``--unshare-all`` gives new user, pid, network (not even the host's loopback), ipc, uts
and cgroup namespaces; ``--as-pid-1`` makes the server the namespace's init (immune to
its children's signals, no zombie-reaper in between); ``--die-with-parent`` and
``--new-session`` keep it tied to us and off our terminal; ``--clearenv`` starts
it from nothing. As root the privileges are dropped *before* bwrap (bwrap's own
``--uid`` would map to real root, which ignores RLIMIT_NPROC). Which ``bwrap`` binary
runs is :mod:`._bwrap_binary`'s choice.
"""

from __future__ import annotations

import os
import sys

WORK_DIR = "/sandbox"
SERVER_PATH = "/r2r/server.py"
TMP_BYTES = 64 * 1024 * 1024
WORK_BYTES = 256 * 1024 * 1024
SHM_BYTES = 16 * 1024 * 1024
PYTHON_FLAGS = ("-S", "-B")
SANDBOX_ENV = {
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "TZ": "UTC",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
}
"""The whole environment inside, but for the work directory's variables (:func:`sandbox_env`)."""


def sandbox_env(home: str) -> dict[str, str]:
    """The whole environment of an execution whose work directory (and cwd) is ``home``:
    nothing of the user's shell."""
    return {**SANDBOX_ENV, "HOME": home, "PWD": home}


def usr_interpreter() -> str | None:
    """An interpreter of the running Python version that lives under /usr (visible inside)."""
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    own = os.path.realpath(sys.executable)
    for path in (own, f"/usr/bin/python{version}", f"/usr/local/bin/python{version}"):
        if path.startswith("/usr/") and os.access(path, os.X_OK):
            return path
    return None


def bwrap_argv(bwrap: str, interpreter: str, server_fd: int, seccomp_fd: int | None, *,
               once: bool) -> list[str]:
    """The command that starts the fork-server in a fresh sandbox."""
    argv = [
        bwrap,
        "--ro-bind", "/usr", "/usr",
        "--symlink", "usr/bin", "/bin",
        "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/lib64", "/lib64",
        "--proc", "/proc",
        "--dev", "/dev",
        "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm",
        "--remount-ro", "/dev",
        "--size", str(TMP_BYTES), "--tmpfs", "/tmp",
        "--size", str(WORK_BYTES), "--tmpfs", WORK_DIR,
        "--ro-bind-data", str(server_fd), SERVER_PATH,
        "--remount-ro", "/",
        "--unshare-all", "--as-pid-1", "--die-with-parent", "--new-session", "--clearenv",
    ]
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    for name, value in SANDBOX_ENV.items():
        argv += ["--setenv", name, value]
    argv += ["--setenv", "HOME", WORK_DIR, "--chdir", WORK_DIR, "--",
             interpreter, *PYTHON_FLAGS, SERVER_PATH]
    return argv + (["--once"] if once else [])
