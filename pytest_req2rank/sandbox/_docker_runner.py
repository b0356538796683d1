"""The docker backend's server: runs INSIDE the container as its pid 1, one execution at a time.

Started as ``python3 -I -S -B -c <this source>`` (the image needs nothing but a Python
3.9+ with its standard library; the root stays read-only). It never imports the plugin.
Protocol on the container's attached stdin/stdout: 16 ASCII digits giving a length, then
that many bytes of JSON, each way. The first request must be ``{"op": "hello"}`` within
:data:`HELLO_S` of the start (else the server exits: a host that died between starting the
container and attaching to it leaves nothing behind); then ``{"op": "run", ...}`` — files,
stdin, argv, timeout, rlimits, output cap, files to read back — answered with the outcome.
EOF on stdin (the host closed the stream, or died) ends the server, hence the container,
at once, even during an execution.

Per execution: the files are laid out in ``/work`` (a tmpfs of the container's own whose
parent is the read-only root); the program starts in a new session with the execution's
rlimits, stdio on memfds (never our pipes, so it cannot forge a reply), the sandbox's
environment, and an OOM score that makes it, not us, the OOM killer's choice. At the end
(exit or the wall timeout) ``kill(-1, SIGKILL)`` ends every other process of the container
— ``setsid`` daemons included — and all are reaped; then ``/work``, ``/tmp`` and ``/dev/shm``
are emptied (unreadable and deep directories too) and System V IPC objects removed, so no
execution sees another's leftovers. Being pid 1 protects the server: signals from the
container's processes, SIGKILL included, are dropped unless it installed a handler, and it
installs none. It is not dumpable, so a process of the same uid can neither ptrace it nor
read its memory. A failure to clean up is reported (``spent``) and ends the server: the host
starts a fresh container.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import select
import signal
import stat
import sys
import time
from collections.abc import Callable
from typing import Any

WORK = "/work"
SCRATCH = (WORK, "/tmp", "/dev/shm")
HELLO_S = 120.0
HEADER_DIGITS = 16
MIN_VERSION = (3, 9)
_PR_SET_DUMPABLE = 4
_IPC_RMID = 0
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
_LIBC = ctypes.CDLL(None, use_errno=True)
_IPC_REMOVE: dict[str, Callable[[int], int]] = {
    "shm": lambda ident: _LIBC.shmctl(ident, _IPC_RMID, None),
    "sem": lambda ident: _LIBC.semctl(ident, 0, _IPC_RMID),
    "msg": lambda ident: _LIBC.msgctl(ident, _IPC_RMID, None),
}


class HostGone(Exception):
    """stdin reached EOF: the host closed the stream or died."""


def read_exact(count: int) -> bytes:
    chunks, left = [], count
    while left:
        chunk = os.read(0, min(left, 1 << 20))
        if not chunk:
            raise HostGone
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def receive(timeout_s: float | None = None) -> dict[str, Any]:
    if timeout_s is not None and not select.select([0], [], [], timeout_s)[0]:
        raise HostGone
    message: dict[str, Any] = json.loads(read_exact(int(read_exact(HEADER_DIGITS))))
    return message


def send(message: dict[str, Any]) -> None:
    data = json.dumps(message).encode()
    view = memoryview(b"%0*d" % (HEADER_DIGITS, len(data)) + data)
    while view:
        view = view[os.write(1, view):]


def memfd(name: str, data: bytes = b"") -> int:
    fd = os.memfd_create(name)
    if data:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    return fd


def lay_out(files: dict[str, str]) -> None:
    for name, text in files.items():
        path = os.path.normpath(os.path.join(WORK, name))
        if not path.startswith(WORK + "/"):
            raise ValueError(f"file path {name!r} escapes the work directory")
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)


def start(argv: list[str], env: dict[str, str], limits: dict[str, int],
          stdio: tuple[int, ...]) -> int:
    """Fork and exec the program (we are single-threaded: forking is safe); its pid."""
    pid = os.fork()
    if pid:
        return pid
    try:
        os.setsid()
        for target, fd in enumerate(stdio):
            os.dup2(fd, target)
        os.chdir(WORK)
        for name in ("SIGPIPE", "SIGXFSZ"):  # Python ignores them; a program gets the default
            signal.signal(getattr(signal, name), signal.SIG_DFL)
        try:
            with open("/proc/self/oom_score_adj", "w") as handle:
                handle.write("1000")
        except OSError:
            pass
        for name, value in limits.items():
            hard = value + 1 if name == "RLIMIT_CPU" else value  # SIGXCPU before SIGKILL
            resource.setrlimit(getattr(resource, name), (value, hard))
        os.execvpe(argv[0], argv, env)
    except BaseException as exc:  # noqa: BLE001 - the child must never return into the server
        try:
            os.write(2, f"r2r: cannot start {argv[0]!r}: {exc}\n".encode())
        finally:
            os._exit(127)
    raise AssertionError("unreachable")


def kill_all() -> None:
    """End every other process of the container and reap them all (we are their init)."""
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def head(fd: int, cap: int) -> tuple[str, bool]:
    data = os.pread(fd, cap + 1, 0)
    return data[:cap].decode("utf-8", errors="replace"), len(data) > cap


def tail(fd: int, cap: int) -> tuple[str, bool]:
    size = os.fstat(fd).st_size
    data = os.pread(fd, cap, max(0, size - cap))
    return data.decode("utf-8", errors="replace"), size > cap


def read_back(names: list[str], cap: int) -> dict[str, str]:
    found = {}
    for name in names:
        path = os.path.normpath(os.path.join(WORK, name))
        if not path.startswith(WORK + "/") or os.path.realpath(path) != path:
            continue
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                found[name] = head(fd, cap)[0]
        finally:
            os.close(fd)
    return found


def empty(top: str) -> None:
    """Remove everything under ``top``, directories made unreadable or nested past PATH_MAX too.

    Nothing runs while we do (every process was killed), so nothing races us."""
    if top == WORK:
        os.chmod(top, 0o700)
    stack = [(os.open(top, _DIRECTORY), "")]
    try:
        while stack:
            fd = stack[-1][0]
            child = None
            with os.scandir(fd) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        child = entry.name
                        break
                    os.unlink(entry.name, dir_fd=fd)
            if child is not None:
                os.chmod(child, 0o700, dir_fd=fd)
                stack.append((os.open(child, _DIRECTORY, dir_fd=fd), child))
                continue
            os.close(fd)
            name = stack.pop()[1]
            if stack:
                os.rmdir(name, dir_fd=stack[-1][0])
    finally:
        for fd, _ in stack:
            os.close(fd)


def remove_ipc() -> None:
    """Remove every System V IPC object of the container (its own IPC namespace)."""
    for kind, remove in _IPC_REMOVE.items():
        with open(f"/proc/sysvipc/{kind}", encoding="ascii") as table:
            rows = table.read().splitlines()[1:]
        for row in rows:
            if remove(int(row.split()[1])) != 0:
                raise OSError(ctypes.get_errno(), f"cannot remove {kind} {row.split()[1]}")


def execute(request: dict[str, Any]) -> dict[str, Any]:
    argv = list(request["argv"])
    if request["python"]:
        argv = [sys.executable, "-B", *argv]
    lay_out(request["files"])
    stdio = (memfd("stdin", request["stdin"].encode()), memfd("stdout"), memfd("stderr"))
    try:
        started = time.perf_counter()
        pid = start(argv, request["env"], request["limits"], stdio)
        pidfd = os.pidfd_open(pid)
        try:
            ready = select.select([pidfd, 0], [], [], request["timeout_s"])[0]
        finally:
            os.close(pidfd)
        if 0 in ready:
            kill_all()
            raise HostGone
        timed_out = not ready
        if timed_out:
            os.kill(-1, signal.SIGKILL)
        status = os.waitpid(pid, 0)[1]
        duration = time.perf_counter() - started
        kill_all()
        cap = request["output_bytes"]
        stdout, out_cut = head(stdio[1], cap)
        stderr, err_cut = tail(stdio[2], cap)
    finally:
        for fd in stdio:
            os.close(fd)
    return {"status": status, "timed_out": timed_out, "duration_s": duration,
            "stdout": stdout, "stderr": stderr, "truncated": out_cut or err_cut,
            "files": read_back(request["read_back"], request["output_bytes"])}


def clean() -> None:
    for top in SCRATCH:
        if os.path.isdir(top):
            empty(top)
    remove_ipc()


def serve() -> None:
    hello = receive(HELLO_S)
    if hello.get("op") != "hello":
        raise SystemExit(f"r2r: expected hello, got {hello.get('op')!r}")
    send({"python": list(sys.version_info[:3]), "executable": sys.executable,
          "uid": os.getuid(), "pid": os.getpid(),
          "supported": sys.version_info[:2] >= MIN_VERSION and hasattr(os, "pidfd_open")})
    while True:
        request = receive()
        try:
            reply = execute(request)
        except HostGone:
            raise
        except Exception as exc:  # noqa: BLE001 - the host reports it as the sandbox's failure
            kill_all()
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        try:
            clean()
        except Exception as exc:  # noqa: BLE001 - cannot promise a clean slate: end here
            reply["spent"] = f"cleaning up failed: {type(exc).__name__}: {exc}"
        send(reply)
        if "spent" in reply:
            return


def main() -> None:
    _LIBC.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as pid 1: dropped, not a KeyboardInterrupt
    try:
        serve()
    except HostGone:
        kill_all()


if __name__ == "__main__":
    main()
