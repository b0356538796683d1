"""A corpus of hostile programs, one per attack, each with the check that proves it was contained.

Plain data and functions (no pytest): ``test_hostile.py`` runs the corpus in this
process, and ``unprivileged_driver.py`` runs it as an unprivileged uid and sends
the outcomes back as JSON. ``Context`` carries what the checks need to know about
the host (a listening port, paths that must stay unreadable or unwritten, a
secret in the environment, a marker to find leftover processes by).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_req2rank.sandbox import PYTHON, ExecOutcome, ExecRequest, Limits, Sandbox

STRONG = ("forkserver", "bwrap")
"""Modes with a filesystem view of their own; ``namespaces`` shares the host's files."""


@dataclass(frozen=True)
class Context:
    port: int
    checkout: str
    secret: str
    marker: str
    outside: str
    host_pid: int
    other_root: str
    as_root: bool
    secret_file: str = ""
    """A file holding ``secret`` in the host's temporary directory, readable by every uid."""


@dataclass(frozen=True)
class Attack:
    name: str
    code: Callable[[Context], str]
    check: Callable[[dict[str, Any], Context], None]
    modes: tuple[str, ...] = ("forkserver", "bwrap", "namespaces", "userns")
    timeout_s: float = 3.0
    limits: dict[str, Any] = field(default_factory=dict)


def leave_then_peek(box: Sandbox, between: Callable[[], Any]) -> Any:
    """Run LEAVE, then PEEK at what it left; assert the second execution found nothing of the
    first (files, IPC objects, work directory). Returns what ``between`` gave, called in
    between, for the caller to compare after the cleanup."""
    first = box.run(ExecRequest(files={"main.py": LEAVE}, argv=(PYTHON, "main.py")))
    assert first.exit_code == 0, first.stderr
    taken = between()
    peek = box.run(ExecRequest(files={"main.py": PEEK},
                               argv=(PYTHON, "main.py", first.stdout.strip())))
    assert peek.exit_code == 0, peek.stderr
    found, ipc_objects, listing = peek.stdout.strip().split(" ", 2)
    assert (found, ipc_objects, eval(listing)) == ("[]", "000", ["main.py"]), peek
    return taken


def request(attack: Attack, ctx: Context) -> ExecRequest:
    return ExecRequest(files={"main.py": attack.code(ctx)}, argv=(PYTHON, "main.py"),
                       timeout_s=attack.timeout_s, limits=Limits(**attack.limits))


def pids_with(marker: str) -> list[int]:
    """Pids of live (non-zombie) processes whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = next(line for line in (entry / "status").read_text().splitlines()
                         if line.startswith("State:"))
        except (OSError, StopIteration):
            continue
        if marker.encode() in cmdline and "zombie" not in state:
            found.append(int(entry.name))
    return found


def result(outcome: ExecOutcome, ctx: Context) -> dict[str, Any]:
    """The outcome as JSON data, plus the processes left carrying the marker."""
    return {**outcome.model_dump(), "left": pids_with(ctx.marker)}


def _clean(out: dict[str, Any]) -> None:
    assert out["error"] is None, out["error"]
    assert out["left"] == [], f"processes outlived the run: {out['left']}"


def _lines(out: dict[str, Any]) -> list[str]:
    return out["stdout"].splitlines()


TRY = "def attempt(label, action):\n    try:\n        action()\n        print(label, 'DONE')\n" \
      "    except BaseException as exc:\n        print(label, 'denied', type(exc).__name__)\n"


def _all_denied(out: dict[str, Any], count: int) -> None:
    _clean(out)
    lines = _lines(out)
    assert len(lines) == count and all(" denied " in line for line in lines), out
    assert out["exit_code"] == 0 and not out["timed_out"]


def _network(ctx: Context) -> str:
    return TRY + (
        "import socket\n"
        f"attempt('loopback', lambda: socket.create_connection(('127.0.0.1', {ctx.port}), 1))\n"
        "attempt('inet', lambda: socket.create_connection(('1.1.1.1', 53), 1))\n"
        "attempt('inet6', lambda: socket.socket(socket.AF_INET6).connect(('::1', 1)))\n"
    )


def _host_files(ctx: Context) -> str:
    return TRY + (
        f"attempt('checkout', lambda: open({ctx.checkout + '/pyproject.toml'!r}).read())\n"
        "attempt('root', lambda: open('/root/.bashrc').read() or __import__('os').listdir('/root'))\n"
        "attempt('home', lambda: __import__('os').listdir('/home') and 1/0)\n"
        "attempt('etc', lambda: open('/etc/passwd').read())\n"
        f"attempt('other', lambda: __import__('os').listdir({ctx.other_root!r}))\n"
    )


def _secret_file(ctx: Context) -> str:
    return TRY + f"attempt('secret file', lambda: print(open({ctx.secret_file!r}).read()))\n"


def _check_secret_file(out: dict[str, Any], ctx: Context) -> None:
    _all_denied(out, 1)
    assert ctx.secret not in out["stdout"]


def _secrets(ctx: Context) -> str:
    return (
        "import os\nprint(dict(os.environ))\n"
        "for pid in os.listdir('/proc'):\n    if pid.isdigit():\n        try:\n"
        "            print(open(f'/proc/{pid}/environ').read())\n"
        "        except OSError:\n            pass\n"
    )


def _check_secrets(out: dict[str, Any], ctx: Context) -> None:
    _clean(out)
    assert "HOME" in out["stdout"] and ctx.secret not in out["stdout"]


def _write_outside(ctx: Context) -> str:
    return TRY + (
        f"attempt('tmp', lambda: open({ctx.outside!r}, 'w').write('x'))\n"
        "attempt('parent', lambda: open('../escape.txt', 'w').write('x'))\n"
        "attempt('root', lambda: open('/escape.txt', 'w').write('x'))\n"
        "attempt('usr', lambda: open('/usr/escape.txt', 'w').write('x'))\n"
    )


def _check_write_outside(out: dict[str, Any], ctx: Context) -> None:
    # /tmp inside is the sandbox's own (emptied after each run): the host path stays untouched.
    # Under bubblewrap the work directory's parent is the read-only root; in the unshare
    # modes it is a host directory of the run, ours as root (a single uid shares it otherwise).
    _clean(out)
    lines = _lines(out)
    assert lines[0] in ("tmp DONE", "tmp denied PermissionError"), out
    assert lines[1].startswith("parent denied ") or not ctx.as_root, out
    assert len(lines) == 4 and all(" denied " in line for line in lines[2:]), out
    assert not os.path.exists(ctx.outside)


def _fork_bomb(ctx: Context) -> str:
    bomb = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    return (f"import os, sys\nos.execv(sys.executable, [sys.executable, '-S', '-c', {bomb!r}, "
            f"{ctx.marker!r}])\n")


def _check_timed_out(out: dict[str, Any], _ctx: Context) -> None:
    _clean(out)
    assert out["timed_out"] and out["signal"] == signal.SIGKILL


def _check_memory(out: dict[str, Any], _ctx: Context) -> None:
    _clean(out)
    assert out["exit_code"] == 1 and "MemoryError" in out["stderr"] and not out["timed_out"]


def _check_flood(out: dict[str, Any], _ctx: Context) -> None:
    _clean(out)
    assert out["output_truncated"] and len(out["stdout"]) == 10_000


def _daemon(ctx: Context) -> str:
    return (
        "import os, sys, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
        "        open('started', 'w').close()\n"
        f"        os.execv(sys.executable, [sys.executable, '-S', '-c', 'import time; "
        f"time.sleep(60)', {ctx.marker!r}])\n    os._exit(0)\n"
        "while not os.path.exists('started'):\n    time.sleep(0.01)\nprint('main done')\n"
    )


def _check_daemon(out: dict[str, Any], _ctx: Context) -> None:
    _clean(out)
    assert out["stdout"] == "main done\n" and out["exit_code"] == 0


def _signal_parents(ctx: Context) -> str:
    return TRY + (
        "import os, signal\n"
        f"attempt('host', lambda: os.kill({ctx.host_pid}, signal.SIGKILL))\n"
        "attempt('init', lambda: os.kill(1, signal.SIGKILL) or os.kill(1, 0) or 1/0)\n"
        "if os.getppid() > 0:  # 0 when the program is its namespace's init\n"
        "    attempt('parent', lambda: os.kill(os.getppid(), signal.SIGKILL) or 1/0)\n"
        "attempt('all', lambda: os.kill(-1, signal.SIGKILL))\n"
    )


def _check_signal_parents(out: dict[str, Any], _ctx: Context) -> None:
    # kill(-1) kills the program itself (and only what it may signal): its own death.
    _clean(out)
    lines = _lines(out)
    assert lines[:2] == ["host denied ProcessLookupError", "init denied ZeroDivisionError"], out
    assert all(" denied " in line for line in lines), out
    assert out["signal"] == signal.SIGKILL or out["exit_code"] == 0


def _trace_parents(ctx: Context) -> str:
    return TRY + (
        "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "def ptrace(pid):\n    if libc.ptrace(16, pid, 0, 0) != 0:\n"
        "        raise OSError(ctypes.get_errno(), 'ptrace')\n"
        "class IOV(ctypes.Structure):\n    _fields_ = [('base', ctypes.c_void_p), "
        "('len', ctypes.c_size_t)]\n"
        "def vm_read(pid):\n    buf = ctypes.create_string_buffer(64)\n"
        "    local, remote = IOV(ctypes.addressof(buf), 64), IOV(0x400000, 64)\n"
        "    if libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) < 0:\n"
        "        raise OSError(ctypes.get_errno(), 'process_vm_readv')\n"
        "def mem(pid):\n    with open(f'/proc/{pid}/mem', 'rb') as f:\n"
        "        f.seek(0x400000)\n        f.read(64)\n"
        f"for pid in sorted({{1, os.getppid(), {ctx.host_pid}}}):\n"
        "    attempt(f'ptrace {pid}', lambda: ptrace(pid))\n"
        "    attempt(f'vm_read {pid}', lambda: vm_read(pid))\n"
        "    attempt(f'mem {pid}', lambda: mem(pid))\n"
    )


def _check_trace(out: dict[str, Any], _ctx: Context) -> None:
    _clean(out)
    lines = _lines(out)
    assert lines and all(" denied " in line for line in lines), out


ATTACKS = [
    Attack("network", _network, lambda out, ctx: _all_denied(out, 3)),
    Attack("host_files", _host_files, lambda out, ctx: _all_denied(out, 5), modes=STRONG),
    Attack("host_secret_file", _secret_file, _check_secret_file, modes=STRONG),
    Attack("secrets", _secrets, _check_secrets),
    Attack("write_outside", _write_outside, _check_write_outside, modes=STRONG),
    Attack("fork_bomb", _fork_bomb, _check_timed_out, timeout_s=1.5,
           limits={"processes": 16}),
    Attack("memory_bomb", lambda ctx: "block = bytearray(2 * 1024 ** 3)\n", _check_memory,
           limits={"memory_mb": 256}),
    Attack("cpu_loop", lambda ctx: "while True:\n    pass\n", _check_timed_out, timeout_s=0.5),
    Attack("output_flood", lambda ctx: "while True:\n    print('x' * 1000)\n", _check_flood,
           timeout_s=2, limits={"output_bytes": 10_000, "file_size_mb": 2}),
    Attack("setsid_daemon", _daemon, _check_daemon),
    Attack("signal_parents", _signal_parents, _check_signal_parents),
    Attack("trace_parents", _trace_parents, _check_trace, modes=STRONG),
]
BY_NAME = {attack.name: attack for attack in ATTACKS}

IPC_KEY = 0x52325232
LIB = "lib = __import__('ctypes').CDLL(None)\n"
"""Python source: ``lib``, the C library, for :func:`ipc_get`."""


def ipc_get(flags: str) -> tuple[str, str, str]:
    """Python source (``lib`` from :data:`LIB`): the id of the System V shared memory
    segment, semaphore set and message queue of ``IPC_KEY`` (-1 when there is none),
    creating it with ``flags``."""
    return (f"lib.shmget({IPC_KEY}, 4096, {flags})", f"lib.semget({IPC_KEY}, 1, {flags})",
            f"lib.msgget({IPC_KEY}, {flags})")


LEAVE = (f"import os\n{LIB}home = os.getcwd()\n"
         "open('secret.txt', 'w').write('s3cret')\nopen('/tmp/leak', 'w').write('x')\n"
         "open('/dev/shm/leak', 'w').write('x')\nos.makedirs('locked/inner')\n"
         "open('locked/inner/f', 'w').write('x')\nos.chmod('locked/inner', 0o500)\n"
         "os.chmod('locked', 0)\nos.mkdir('deep')\nos.chdir('deep')\nfor _ in range(300):\n"
         "    os.mkdir('d')\n    os.chdir('d')\nopen('f', 'w').write('x')\nos.chdir(home)\n"
         f"assert min({', '.join(ipc_get('0o1600'))}) >= 0\n"
         "print(os.getcwd())\n")
PEEK = (f"import os, sys\n{LIB}found = []\n"
        "for path in (sys.argv[1] + '/secret.txt', '/tmp/leak', "
        "'/dev/shm/leak', sys.argv[1] + '/locked/inner/f'):\n"
        "    try:\n        found.append(open(path).read())\n    except OSError:\n        pass\n"
        f"print(found, ''.join(str(int(i >= 0)) for i in [{', '.join(ipc_get('0'))}]), "
        "sorted(os.listdir('.')))\n")
"""An earlier run leaves files (in directories it made unreadable, and 300 levels deep), a
System V shared memory segment, semaphore set and message queue; a later run looks for all
of it and lists its own work directory."""
