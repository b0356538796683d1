"""The fork-server: runs INSIDE the sandbox as its pid 1 and forks one child per execution.

It never imports the plugin (it is copied into the sandbox on its own). Protocol,
on fd 0: a 16-digit length, a JSON header of that length (timeout, rlimits, sizes,
the files to read back, trusted helper modules), then the payload (marshal: files,
stdin, argv, env). On fd 1: a JSON reply line, then the raw bytes it announces
(stdout, stderr, files read back). The server never holds an execution's content
in its own memory, which every later child inherits: the payload is spliced from
the pipe into a memfd that only the child reads, and the outputs go from the
child's memfds back to the pipe with ``sendfile``. The helper modules (``modules``,
the host's own code) are imported once, so that every child finds them loaded.
Whatever the server imports or runs, every child pays for in copy-on-write page
faults; ``threading`` in particular stays out (its at-fork hook runs in every child).

The child lays the files out in the work directory ``/sandbox`` (a tmpfs of the
sandbox's own) before it drops to the execution's rlimits. Being pid 1 of its pid
namespace protects the server: signals from its own descendants (SIGKILL included)
are dropped unless it installed a handler, and it installs none. It is not dumpable,
so no child can open its ``/proc/1/mem``; seccomp (loaded by bubblewrap) forbids
ptrace and process_vm_readv. After every execution ``kill(-1, SIGKILL)`` ends every
other process of the namespace — ``setsid`` daemons included — then ``/sandbox``,
``/tmp`` and ``/dev/shm`` are emptied and System V IPC objects removed, so no
execution sees another's leftovers. A failure to clean up ends the server: the host
starts a fresh sandbox.

``argv[1] == "--once"``: serve one request and exit (one process per execution).
"""

from __future__ import annotations

import _signal
import atexit
import builtins
import ctypes
import json
import marshal
import os
import resource
import select
import signal
import stat
import sys
import time
import traceback
from typing import Any

PRELOAD = (
    "abc", "argparse", "array", "bisect", "collections", "copy", "dataclasses", "datetime",
    "decimal", "enum", "fractions", "functools", "hashlib", "heapq", "io", "itertools", "json",
    "math", "operator", "pkgutil", "random", "re", "statistics", "string", "textwrap", "typing",
    "unittest",
)
WORK = "/sandbox"
HEADER_DIGITS = 16
SCRATCH = (WORK, "/tmp", "/dev/shm")
"""Emptied after every execution."""
IPC_KINDS = ("shm", "sem", "msg")
_PR_SET_DUMPABLE = 4
_IPC_RMID = 0
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
_LIBC = ctypes.CDLL(None, use_errno=True)
_warm: dict[str, str] = {}
"""Helper modules imported into this interpreter, by name, with their source."""
_environ: dict[str, str] = {}
"""The server's own environment: a child whose execution asks for the same keeps it."""
_stdio: list[Any] = []
"""``sys.stdin``, ``sys.stdout`` and ``sys.stderr`` for the children, made once."""
_ipc_info = (ctypes.c_int * 16)()
"""The buffer of the ``*_INFO`` queries (``struct shm_info``, ``seminfo``, ``msginfo``)."""
_SHM_INFO, _SEM_INFO, _MSG_INFO = 14, 19, 12


def preload() -> None:
    for name in PRELOAD:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001, S110 - a missing module only costs speed
            pass


def main() -> None:
    once = sys.argv[1:2] == ["--once"]
    _LIBC.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if not once:
        preload()
    _environ.update(os.environ)
    _stdio.extend(stdio())
    os.write(1, b'{"ready": true}\n')
    while True:
        size = read_exact(HEADER_DIGITS)
        if not size:
            return
        serve(json.loads(read_exact(int(size))))
        if once:
            return


def stdio() -> tuple[Any, ...]:
    """stdin, stdout and stderr as ``python script.py`` makes them when the three are regular
    files: with this interpreter's own settings, made while fds 0-2 briefly point at an
    empty file, so that they see one."""
    saved = [os.dup(fd) for fd in (0, 1, 2)]
    scratch = os.memfd_create("stdio")
    try:
        for fd in (0, 1, 2):
            os.dup2(scratch, fd)
        made: tuple[Any, ...] = tuple(
            open(fd, mode, encoding=own.encoding, errors=own.errors,  # noqa: SIM115
                 closefd=False, buffering=1 if own.line_buffering else -1)
            for fd, mode, own in ((0, "r", sys.stdin), (1, "w", sys.stdout),
                                  (2, "w", sys.stderr)))
    finally:
        for fd, copy in zip((0, 1, 2), saved):
            os.dup2(copy, fd)
            os.close(copy)
        os.close(scratch)
    for stream, name in zip(made, ("<stdin>", "<stdout>", "<stderr>")):
        stream.buffer.raw.name = name
    return made


def read_exact(count: int) -> bytes:
    """``count`` bytes of fd 0 (fewer only at its end), never reading past them."""
    data = b""
    while len(data) < count:
        chunk = os.read(0, count - len(data))
        if not chunk:
            break
        data += chunk
    return data


def serve(header: dict[str, Any]) -> None:
    """Run one execution and send its reply; a setup failure is ``{"error": ...}``."""
    fds = [os.memfd_create(name) for name in ("payload", "stdout", "stderr")]
    try:
        moved = 0
        while moved < header["payload"]:
            done = os.splice(0, fds[0], header["payload"] - moved)
            if not done:
                raise EOFError("the request ended early")
            moved += done
        try:
            warm(header["modules"])
        except Exception as exc:  # noqa: BLE001 - reported, the server stays as it was
            reply: dict[str, Any] = {"error": f"helper modules: {type(exc).__name__}: {exc}"}
            sources: list[tuple[int, int, int]] = []
        else:
            reply, sources = execute(header, fds)
        os.write(1, json.dumps(reply).encode() + b"\n")
        for fd, offset, count in sources:
            send(fd, offset, count)
    finally:
        for fd in fds:
            os.close(fd)
        clean()


def execute(header: dict[str, Any],
            fds: list[int]) -> tuple[dict[str, Any], list[tuple[int, int, int]]]:
    """The reply and the (fd, offset, byte count) parts to send after it; the fds of the
    files read back are added to ``fds``."""
    sys.stdout.flush()
    sys.stderr.flush()
    report_r, report_w = os.pipe()
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(report_r)
            child(header, fds, report_w)
        except BaseException as exc:  # noqa: BLE001 - the setup failed: the server's fault
            os.write(report_w, f"E{type(exc).__name__}: {exc}".encode()[:4000])
        finally:
            os._exit(125)
    os.close(report_w)
    pidfd = os.pidfd_open(pid)
    ready, _, _ = select.select([pidfd], [], [], header["timeout_s"])
    os.close(pidfd)
    if not ready:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    duration = time.perf_counter() - started
    report = os.read(report_r, 4096)
    os.close(report_r)
    sweep()
    if report[:1] != b"K":
        return {"error": report[1:].decode(errors="replace") or "the child died during setup"}, []
    cap = header["output_bytes"]
    out_size, err_size = os.fstat(fds[1]).st_size, os.fstat(fds[2]).st_size
    sources = [(fds[1], 0, min(out_size, cap)),
               (fds[2], max(0, err_size - cap), min(err_size, cap))]  # the tail of stderr
    files = []
    for key, name in header["read_back"]:
        fd = open_regular(name)
        if fd is not None:
            fds.append(fd)
            sources.append((fd, 0, min(os.fstat(fd).st_size, cap)))
            files.append([key, sources[-1][2]])
    reply = {"status": status, "timed_out": not ready, "duration_s": duration,
             "sizes": [sources[0][2], sources[1][2]],
             "truncated": out_size > cap or err_size > cap, "files": files}
    return reply, sources


def send(fd: int, offset: int, count: int) -> None:
    """``count`` bytes of ``fd`` from ``offset`` to fd 1, kernel to kernel."""
    while count > 0:
        done = os.sendfile(1, fd, offset, count)
        if not done:
            raise EOFError("an output shrank while it was sent")
        offset, count = offset + done, count - done


def open_regular(name: str) -> int | None:
    """A read-only fd on the regular file ``name`` of the work directory; None for a symlink."""
    target = os.path.join(WORK, name)
    if os.path.realpath(target) != target:  # a symlink somewhere on the way
        return None
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    if stat.S_ISREG(os.fstat(fd).st_mode):
        return fd
    os.close(fd)
    return None


def warm(modules: dict[str, str | None]) -> None:
    """Import the host's helper modules into this interpreter (again when a source changed);
    None stands for one imported before."""
    for name, source in modules.items():
        if source is None or _warm.get(name) == source:
            if name not in _warm:
                raise KeyError(f"module {name!r} was never sent")
            continue
        if name in sys.modules and name not in _warm:
            raise ValueError(f"module {name!r} would replace one the server imported")
        module = type(sys)(name)
        module.__file__ = f"{name}.py"
        code = compile(source, f"{name}.py", "exec", dont_inherit=True)
        exec(code, module.__dict__)  # noqa: S102 - the host's own helper modules
        sys.modules[name] = module
        _warm[name] = source


def sweep() -> None:
    """End every other process of the namespace and reap them."""
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break


def clean() -> None:
    """Empty the scratch directories and remove System V IPC objects; raises if it cannot."""
    for directory in SCRATCH:
        empty(directory)
    if not ipc_in_use():
        return
    for kind in IPC_KINDS:
        with open(f"/proc/sysvipc/{kind}", encoding="ascii") as table:
            rows = table.read().splitlines()[1:]
        for row in rows:
            ident = int(row.split()[1])
            done = (_LIBC.semctl(ident, 0, _IPC_RMID) if kind == "sem" else
                    getattr(_LIBC, f"{kind}ctl")(ident, _IPC_RMID, None))
            if done != 0:
                raise OSError(ctypes.get_errno(), f"cannot remove {kind} {ident}")


def ipc_in_use() -> bool:
    """Whether the namespace holds any System V IPC object: three queries of the kernel's
    counts, cheaper than reading ``/proc/sysvipc``."""
    info = _ipc_info
    for query, args, count in ((_LIBC.shmctl, (0, _SHM_INFO), 0),  # shm_info.used_ids
                               (_LIBC.msgctl, (0, _MSG_INFO), 0),  # msginfo.msgpool
                               (_LIBC.semctl, (0, 0, _SEM_INFO), 7)):  # seminfo.semusz
        if query(*args, info) < 0 or info[count]:
            return True
    return False


def empty(top: str) -> None:
    """Delete everything under ``top`` whatever its modes, depth or names; one fd at a time."""
    os.chmod(top, 0o755)
    fd = os.open(top, _DIRECTORY)
    depth = 0
    try:
        while True:
            deeper = _clear_level(fd)
            if deeper is not None:
                below = os.open(deeper, _DIRECTORY, dir_fd=fd)
                os.close(fd)
                fd, depth = below, depth + 1
            elif depth:
                above = os.open("..", _DIRECTORY, dir_fd=fd)
                os.close(fd)
                fd, depth = above, depth - 1
            else:
                return
    finally:
        os.close(fd)


def _clear_level(fd: int) -> str | None:
    """Remove the files and empty directories in ``fd``; the name of a non-empty one, if any."""
    with os.scandir(fd) as entries:
        for entry in entries:
            if not entry.is_dir(follow_symlinks=False):
                os.unlink(entry.name, dir_fd=fd)
                continue
            os.chmod(entry.name, 0o700, dir_fd=fd)
            try:
                os.rmdir(entry.name, dir_fd=fd)
            except OSError:
                return entry.name
    return None


def child(header: dict[str, Any], fds: list[int], report: int) -> None:
    """Lay out the files, set up the execution (session, cwd, stdio, rlimits, env), tell
    the server, run it."""
    os.setsid()
    payload = marshal.loads(os.pread(fds[0], header["payload"], 0))
    lay_out(payload["files"])
    stdin = os.memfd_create("stdin")
    os.write(stdin, payload["stdin"])
    os.lseek(stdin, 0, os.SEEK_SET)
    os.chdir(WORK)
    for name, value in header["limits"].items():
        which = getattr(resource, name)
        ceiling = resource.getrlimit(which)[1]
        hard = value + 1 if name == "RLIMIT_CPU" else value
        if ceiling != resource.RLIM_INFINITY:
            value, hard = min(value, ceiling), min(hard, ceiling)
        resource.setrlimit(which, (value, hard))
    _signal.signal(signal.SIGINT, signal.default_int_handler)  # signal.signal costs an Enum lookup
    if payload["env"] != _environ:
        os.environ.clear()
        os.environ.update(payload["env"])
    for fd, target in zip((stdin, fds[1], fds[2]), (0, 1, 2)):
        os.dup2(fd, target)
    os.write(report, b"K")
    os.closerange(3, 1 << 16)
    argv = payload["argv"]
    if payload["script"] is None:
        os.execv(argv[0], argv)
    # The script's streams, the originals included, as the interpreter makes them for a script
    # (typeshed marks sys.__stdin__ and its kin Final: they are only assignable at run time).
    sys.stdin = sys.__stdin__ = _stdio[0]  # type: ignore[misc]
    sys.stdout = sys.__stdout__ = _stdio[1]  # type: ignore[misc]
    sys.stderr = sys.__stderr__ = _stdio[2]  # type: ignore[misc]
    sys.argv = argv[1:]
    sys.path[0] = WORK
    os._exit(run_script(payload["script"]))


def lay_out(files: dict[str, str]) -> None:
    """Write the execution's files (paths checked by the host: relative, normalized)."""
    for name, content in files.items():
        if name.startswith("/") or ".." in name.split("/"):
            raise ValueError(f"file path {name!r} escapes the work directory")
        target = os.path.join(WORK, name)
        if "/" in name:
            os.makedirs(os.path.dirname(target), exist_ok=True)
        data = memoryview(content.encode())
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            while data:
                data = data[os.write(fd, data):]
        finally:
            os.close(fd)


def run_script(path: str) -> int:
    """Run ``path`` as ``python path`` would: ``__main__``, exit status, atexit, thread joins."""
    code = 0
    main = type(sys)("__main__")  # what runpy does, without its cost in a fresh fork
    namespace = vars(main)
    namespace.update(__file__=path, __builtins__=builtins)
    sys.modules["__main__"] = main
    try:
        with open(path, "rb") as handle:
            source = handle.read()
        exec(compile(source, path, "exec", dont_inherit=True), namespace)  # noqa: S102
    except SystemExit as exc:
        code = exit_code(exc)
    except BaseException as exc:  # noqa: BLE001 - reported like the interpreter does
        traceback.print_exception(exc)
        code = 1
    try:
        threading = sys.modules.get("threading")  # as at interpreter exit: only if imported
        if threading is not None:
            threading._shutdown()
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
    except Exception:  # noqa: BLE001, S110 - its str() or stderr may fail: 1 either way
        pass
    return 1


if __name__ == "__main__":
    main()
