"""The fork-server: runs INSIDE the sandbox as its pid 1 and forks one child per execution.

It never imports the plugin (it is copied into the sandbox on its own). Protocol:
one JSON request per line on fd 0, one JSON reply per line on fd 1. A request
names a run directory under the bound work root, which already holds ``work/``
(the files) and ``stdin``; the child writes ``stdout`` and ``stderr`` there.

Being pid 1 of its pid namespace protects the server: signals from its own
descendants (SIGKILL included) are dropped unless it installed a handler, and it
installs none. It is not dumpable, so no child can open its ``/proc/1/mem``;
seccomp (loaded by bubblewrap) forbids ptrace and process_vm_readv. After every
execution ``kill(-1, SIGKILL)`` ends every other process of the namespace —
``setsid`` daemons included — and ``/tmp`` is emptied, so no execution sees
another's leftovers.

``argv[1] == "--once"``: serve one request and exit (one process per execution).
"""

from __future__ import annotations

import atexit
import ctypes
import json
import os
import resource
import runpy
import select
import shutil
import signal
import sys
import threading
import time
import traceback

PRELOAD = (
    "abc", "argparse", "array", "bisect", "collections", "copy", "dataclasses", "datetime",
    "decimal", "enum", "fractions", "functools", "hashlib", "heapq", "io", "itertools", "json",
    "math", "operator", "pkgutil", "random", "re", "statistics", "string", "textwrap", "typing",
    "unittest",
)
_PR_SET_DUMPABLE = 4
_MB = 1024 * 1024


def preload() -> None:
    for name in PRELOAD:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - a missing module only costs speed
            pass


def main() -> None:
    once = sys.argv[1:2] == ["--once"]
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if not once:
        preload()
    os.write(1, b'{"ready": true}\n')
    pending = b""
    while True:
        while b"\n" not in pending:
            chunk = os.read(0, 65536)
            if not chunk:
                return
            pending += chunk
        line, pending = pending.split(b"\n", 1)
        reply = serve(json.loads(line))
        os.write(1, json.dumps(reply).encode() + b"\n")
        if once:
            return


def serve(request: dict) -> dict:
    run = request["dir"]
    sys.stdout.flush()
    sys.stderr.flush()
    report_r, report_w = os.pipe()
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(report_r)
            child(request, run, report_w)
        except BaseException as exc:  # noqa: BLE001 - the setup failed: the server's fault
            os.write(report_w, f"E{type(exc).__name__}: {exc}".encode()[:4000])
        finally:
            os._exit(125)
    os.close(report_w)
    pidfd = os.pidfd_open(pid)
    ready, _, _ = select.select([pidfd], [], [], request["timeout_s"])
    os.close(pidfd)
    if not ready:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    duration = time.perf_counter() - started
    report = os.read(report_r, 4096)
    os.close(report_r)
    sweep()
    if report[:1] != b"K":
        return {"error": report[1:].decode(errors="replace") or "the child died during setup"}
    return {"status": status, "timed_out": not ready, "duration_s": duration}


def sweep() -> None:
    """End every other process of the namespace, reap them, and empty /tmp."""
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
    for entry in os.scandir("/tmp"):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            try:
                os.unlink(entry.path)
            except OSError:
                pass


def child(request: dict, run: str, report: int) -> None:
    """Set up the execution (session, cwd, stdio, rlimits, env), tell the server, run it."""
    os.setsid()
    work = os.path.join(run, "work")
    os.chdir(work)
    stdin = os.open(os.path.join(run, "stdin"), os.O_RDONLY)
    out = os.open(os.path.join(run, "stdout"), os.O_WRONLY | os.O_TRUNC)
    err = os.open(os.path.join(run, "stderr"), os.O_WRONLY | os.O_TRUNC)
    for name, value in request["limits"].items():
        which = getattr(resource, name)
        ceiling = resource.getrlimit(which)[1]
        hard = value + 1 if name == "RLIMIT_CPU" else value
        if ceiling != resource.RLIM_INFINITY:
            value, hard = min(value, ceiling), min(hard, ceiling)
        resource.setrlimit(which, (value, hard))
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.environ.clear()
    os.environ.update(request["env"])
    for fd, target in ((stdin, 0), (out, 1), (err, 2)):
        os.dup2(fd, target)
    os.write(report, b"K")
    os.closerange(3, 1 << 16)
    argv = request["argv"]
    if request["script"] is None:
        os.execv(argv[0], argv)
    sys.stdin = sys.__stdin__ = open(0, encoding="utf-8", closefd=False)
    sys.stdout = sys.__stdout__ = open(1, "w", encoding="utf-8", closefd=False)
    sys.stderr = sys.__stderr__ = open(2, "w", encoding="utf-8", errors="backslashreplace",
                                       closefd=False, buffering=1)
    sys.argv = argv[1:]
    sys.path[0] = work
    os._exit(run_script(request["script"]))


def run_script(path: str) -> int:
    """Run ``path`` as ``python path`` would: ``__main__``, exit status, atexit, thread joins."""
    code = 0
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        code = exit_code(exc)
    except BaseException as exc:  # noqa: BLE001 - reported like the interpreter does
        traceback.print_exception(exc)
        code = 1
    try:
        threading._shutdown()  # type: ignore[attr-defined]
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except SystemExit as exc:
        code = exit_code(exc)
    except BaseException:  # noqa: BLE001
        code = code or 120
    return code


def exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code & 0xFF
    try:
        print(exc.code, file=sys.stderr)
    except Exception:  # noqa: BLE001
        pass
    return 1


if __name__ == "__main__":
    main()
