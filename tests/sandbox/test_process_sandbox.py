"""The process backend: what the code sees, what it may not do, and what is left afterwards."""

from __future__ import annotations

import errno
import os
import signal
import socket
import tempfile
import uuid
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import pytest

from pytest_req2rank.sandbox import (
    PYTHON,
    ExecOutcome,
    ExecRequest,
    Limits,
    ProcessSandbox,
    SandboxUnavailable,
    create_sandbox,
)
from pytest_req2rank.sandbox._forkserver import ForkServer

from .conftest import pids_with

ROOT = os.geteuid() == 0
root_only = pytest.mark.skipif(not ROOT, reason="only root ignores RLIMIT_NPROC (CI runs as root)")


def run(box: ProcessSandbox, code: str, **fields: Any) -> ExecOutcome:
    return box.run(ExecRequest(files={"main.py": code}, argv=(PYTHON, "main.py"), **fields))


def test_runs_python_and_reports_output(sandbox: ProcessSandbox) -> None:
    outcome = sandbox.run(ExecRequest(
        files={"main.py": "import sys\nfrom pkg.helper import twice\nprint(twice(int(input())))\n"
                          "print('oops', file=sys.stderr)\nsys.exit(3)\n",
               "pkg/__init__.py": "", "pkg/helper.py": "def twice(x):\n    return 2 * x\n"},
        argv=(PYTHON, "main.py"), stdin="21\n",
    ))
    assert outcome.error is None
    assert (outcome.stdout, outcome.stderr, outcome.exit_code) == ("42\n", "oops\n", 3)
    assert not outcome.timed_out and not outcome.ok


def test_environment_is_empty_and_deterministic(sandbox: ProcessSandbox,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-should-not-leak")
    outcome = run(sandbox, "import os, sys\nprint(sorted(os.environ))\n"
                           "print(os.environ['TZ'], os.environ['PYTHONHASHSEED'], "
                           "sys.flags.hash_randomization, os.environ['HOME'] == os.getcwd())\n")
    assert "sk-secret" not in outcome.stdout and "OPENAI_API_KEY" not in outcome.stdout
    names, values = outcome.stdout.splitlines()
    assert eval(names) == sorted([
        "PATH", "HOME", "PWD", "LANG", "TZ", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE",
        "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS",
    ])
    assert values == "UTC 0 0 True"


STDIO = ("import os, sys\nstreams = (sys.stdin, sys.stdout, sys.stderr)\n"
         "print(repr(sys.stdin.read()), [(s.name, s.encoding, s.errors, s.line_buffering, "
         "s.seekable(), s.fileno()) for s in streams], streams == (sys.__stdin__, "
         "sys.__stdout__, sys.__stderr__))\nprint('buffered', end='')\nsys.stdout.flush()\n"
         "os.write(1, b'|raw|')\nprint('after')\nprint('e1', file=sys.stderr)\n"
         "os.write(2, b'e2')\n")


def test_standard_streams_are_a_fresh_interpreters(sandbox: ProcessSandbox) -> None:
    """The fork-server's children get stdio made once in the server; they must be what
    ``python main.py`` with files as its stdio has (the unshare mode runs one)."""
    outcome = run(sandbox, STDIO, stdin="h\u00e9llo")
    assert outcome.stdout.endswith("\nbuffered|raw|after\n") and outcome.stderr == "e1\ne2"
    assert outcome.stdout.startswith("'h\u00e9llo' [('<stdin>', 'utf-8', "), outcome.stdout
    try:
        fresh = ProcessSandbox(mode="unshare")
    except SandboxUnavailable as exc:
        pytest.skip(f"no fresh interpreter to compare with: {exc}")
    with fresh:
        assert run(fresh, STDIO, stdin="h\u00e9llo") == outcome.model_copy(
            update={"duration_s": ANY})


def test_work_directory_is_fresh_and_removed(sandbox: ProcessSandbox) -> None:
    first = run(sandbox, "import os\nopen('left.txt', 'w').write('x')\nprint(os.getcwd())\n")
    second = run(sandbox, "import os\nprint(os.getcwd(), sorted(os.listdir('.')))\n")
    work = Path(first.stdout.strip())
    assert eval(second.stdout.split(" ", 1)[1]) == ["main.py"]
    assert str(work) == "/sandbox" and not work.exists()  # inside bubblewrap only


def test_helper_modules_are_importable(sandbox: ProcessSandbox) -> None:
    outcome = sandbox.run(ExecRequest(
        files={"main.py": "import r2r_helper\nprint(r2r_helper.twice(21))\n"},
        modules={"r2r_helper": "def twice(x):\n    return 2 * x\n"}, argv=(PYTHON, "main.py")))
    assert outcome.stdout == "42\n", outcome
    escaping = run(sandbox, "print(1)", modules={"../r2r_helper": ""})
    assert escaping.error is not None and escaping.stdout == ""


@pytest.mark.parametrize("path", ["../escape.py", "/tmp/escape.py", "a/../../escape.py", ""])
def test_request_paths_escaping_the_work_directory_are_rejected(
    sandbox: ProcessSandbox, path: str
) -> None:
    ours = sorted(os.listdir(sandbox.work_root))  # the only host directory the sandbox writes
    outcome = sandbox.run(ExecRequest(files={"main.py": "print(1)", path: "x = 1"},
                                      argv=(PYTHON, "main.py")))
    assert outcome.error is not None and "escapes the work directory" in outcome.error
    assert outcome.stdout == ""
    assert "escape.py" not in os.listdir(tempfile.gettempdir())
    assert sorted(os.listdir(sandbox.work_root)) == ours  # (other processes share /tmp)


def test_code_cannot_write_outside_its_work_directory_by_relative_path(
    sandbox: ProcessSandbox,
) -> None:
    outcome = run(sandbox, "try:\n    open('../escape.txt', 'w').write('x')\n    print('wrote')\n"
                           "except OSError as exc:\n    print(type(exc).__name__)\n")
    assert outcome.stdout == "OSError\n"  # bubblewrap's read-only root (EROFS)


def test_read_back_returns_files_but_never_follows_symlinks(sandbox: ProcessSandbox) -> None:
    outcome = sandbox.run(ExecRequest(
        files={"main.py": "import os\nopen('out/result.txt', 'w').write('done')\n"
                          "os.symlink('/etc/passwd', 'out/leak.txt')\n", "out/.keep": ""},
        argv=(PYTHON, "main.py"), read_back=("out/result.txt", "out/leak.txt", "missing.txt"),
    ))
    assert outcome.files == {"out/result.txt": "done"}


def test_wall_timeout_kills_the_process(sandbox: ProcessSandbox) -> None:
    outcome = run(sandbox, "while True:\n    pass\n", timeout_s=0.5)
    assert outcome.timed_out and outcome.signal == signal.SIGKILL
    assert outcome.error is None


def test_cpu_limit(sandbox: ProcessSandbox) -> None:
    outcome = run(sandbox, "while True:\n    pass\n", timeout_s=10,
                  limits=Limits(cpu_s=1))
    assert not outcome.timed_out and outcome.signal in (signal.SIGXCPU, signal.SIGKILL)


def test_memory_hog_gets_memory_error(sandbox: ProcessSandbox) -> None:
    outcome = run(sandbox, "block = bytearray(2 * 1024 ** 3)\n", limits=Limits(memory_mb=256))
    assert outcome.exit_code == 1 and "MemoryError" in outcome.stderr


def test_file_size_limit(sandbox: ProcessSandbox) -> None:
    outcome = run(sandbox, "open('big', 'wb').write(b'x' * (3 * 1024 * 1024))\n",
                  limits=Limits(file_size_mb=1))
    assert outcome.exit_code != 0


def test_output_flood_is_capped_and_flagged(sandbox: ProcessSandbox) -> None:
    outcome = run(sandbox, "while True:\n    print('x' * 1000)\n", timeout_s=2,
                  limits=Limits(output_bytes=10_000, file_size_mb=2))
    assert outcome.output_truncated
    assert len(outcome.stdout) == 10_000


@root_only
@pytest.mark.parametrize("mode", ["forkserver", "bwrap", "unshare"])
def test_process_limit_holds_as_root(mode: str) -> None:
    """Root ignores RLIMIT_NPROC: every mode drops to an unprivileged uid before the code
    runs, so a fork beyond the limit fails with EAGAIN (the unshare fallback included)."""
    try:
        box = ProcessSandbox(mode=mode)  # type: ignore[arg-type]
    except SandboxUnavailable as exc:
        pytest.skip(f"mode {mode} cannot run here: {exc}")
    code = (
        "import os, time\nmade, error = 0, None\nfor _ in range(100):\n    try:\n"
        "        pid = os.fork()\n    except OSError as exc:\n        error = exc.errno\n"
        "        break\n    if pid == 0:\n        time.sleep(5)\n        os._exit(0)\n"
        "    made += 1\nprint(made, os.getuid(), error)\n"
    )
    with box:
        outcome = run(box, code, limits=Limits(processes=10))
    made, uid, error = outcome.stdout.split()
    assert 0 < int(made) < 10 and int(uid) != 0 and int(error) == errno.EAGAIN, outcome


def test_fork_bomb_is_contained_and_nothing_is_left(sandbox: ProcessSandbox) -> None:
    marker = f"r2r-bomb-{uuid.uuid4().hex}"
    bomb = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    code = f"import os, sys\nos.execv(sys.executable, [sys.executable, '-S', '-c', {bomb!r}, {marker!r}])\n"
    outcome = run(sandbox, code, timeout_s=1.5, limits=Limits(processes=16))
    assert outcome.timed_out
    assert pids_with(marker) == []


DAEMON = """\
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        open('started', 'w').close()
        os.execv(sys.executable, [sys.executable, '-S', '-c', 'import time; time.sleep(60)', {marker!r}])
    os._exit(0)
while not os.path.exists('started'):
    time.sleep(0.01)
print('main done')
"""


def test_setsid_daemon_does_not_outlive_the_run(sandbox: ProcessSandbox) -> None:
    marker = f"r2r-daemon-{uuid.uuid4().hex}"
    outcome = run(sandbox, DAEMON.format(marker=marker), timeout_s=5, read_back=("started",))
    assert outcome.stdout == "main done\n" and "started" in outcome.files
    assert pids_with(marker) == []


def test_rlimits_mode_lets_a_daemon_escape_which_is_why_it_is_the_last_resort() -> None:
    box = ProcessSandbox(mode="rlimits")
    assert box.isolation.startswith("process: WARNING no isolation (process:rlimits)")
    assert box.isolation_level == "rlimits"
    marker = f"r2r-daemon-{uuid.uuid4().hex}"
    outcome = run(box, DAEMON.format(marker=marker), timeout_s=5)
    escaped = pids_with(marker)
    for pid in escaped:
        os.kill(pid, signal.SIGKILL)
    assert outcome.stdout == "main done\n"
    assert escaped, "the daemon test above would be vacuous if this mode killed the daemon"


def test_no_network_not_even_loopback(sandbox: ProcessSandbox) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        outcome = run(sandbox, "import socket\ntry:\n    socket.create_connection("
                               f"('127.0.0.1', {port}), timeout=1)\n    print('connected')\n"
                               "except OSError as exc:\n    print(type(exc).__name__)\n")
    assert outcome.stdout.strip() not in ("connected", "")


def test_cannot_see_or_signal_the_host_processes(sandbox: ProcessSandbox) -> None:
    outcome = run(sandbox, f"import os\ntry:\n    os.kill({os.getpid()}, 0)\n    print('reached')\n"
                           "except OSError as exc:\n    print(type(exc).__name__)\n")
    assert outcome.stdout in ("ProcessLookupError\n", "PermissionError\n")


def test_sandbox_failure_is_reported_not_raised(sandbox: ProcessSandbox,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: object, **_kwargs: object) -> str:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", broken)  # the modes that lay files out on the host
    monkeypatch.setattr(ForkServer, "execute", broken)  # the bubblewrap ones
    outcome = run(sandbox, "print(1)")
    assert outcome.error is not None and "No space left" in outcome.error


def test_a_program_that_prints_like_the_launcher_is_still_its_own_failure(
    sandbox: ProcessSandbox,
) -> None:
    outcome = run(sandbox, "import sys\nprint('unshare: unshare failed: fake', file=sys.stderr)\n"
                           "sys.exit(1)\n")
    assert outcome.error is None and outcome.exit_code == 1


def test_create_sandbox() -> None:
    with create_sandbox("process") as box:
        assert isinstance(box, ProcessSandbox) and box.mode == "forkserver"
        assert box.isolation.startswith("process: bubblewrap fork-server, bwrap ")
        assert box.isolation_level == "full" and "WARNING" not in box.isolation
    with pytest.raises(SandboxUnavailable,
                       match="unknown sandbox 'nsjail'; allowed: process, docker, sandboxfusion"):
        create_sandbox("nsjail")
    with pytest.raises(SandboxUnavailable, match="unknown process mode 'jail'"):
        create_sandbox("process:jail")
    with create_sandbox("process:unshare") as spawned:
        assert isinstance(spawned, ProcessSandbox) and spawned.mode in ("namespaces", "userns")
        assert spawned.isolation.startswith("process: WARNING no filesystem isolation")
        assert spawned.isolation_level == "namespaces"


def test_the_default_is_the_fork_server_and_its_line_is_honest(sandbox: ProcessSandbox) -> None:
    assert sandbox.mode == "forkserver" and sandbox.isolation_level == "full"
    assert sandbox._executor.binary.description in sandbox.isolation  # type: ignore[union-attr]
    assert "network (none)" in sandbox.isolation and "read-only /usr only" in sandbox.isolation
    assert "; seccomp;" in sandbox.isolation
    if ROOT:
        assert "dropped from root" in sandbox.isolation
    else:
        assert "own uid" in sandbox.isolation
