"""The fork-server mode: programs run as `python main.py` would, and its own faults are sandbox errors."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from pytest_req2rank.sandbox import (
    PYTHON,
    ExecOutcome,
    ExecRequest,
    ProcessSandbox,
    SandboxUnavailable,
    _boxed,
)


@pytest.fixture(scope="module")
def box() -> Iterator[ProcessSandbox]:
    with forkserver() as sandbox:
        yield sandbox


def forkserver(servers: int | None = None) -> ProcessSandbox:
    """A fork-server sandbox of its own; the test is skipped where bubblewrap cannot run one."""
    try:
        return ProcessSandbox(mode="forkserver", servers=servers)
    except SandboxUnavailable as exc:
        pytest.skip(f"no bubblewrap fork-server here: {exc}")


def run(box: ProcessSandbox, code: str, *args: str, **fields: Any) -> ExecOutcome:
    return box.run(ExecRequest(files={"main.py": code}, argv=(PYTHON, "main.py", *args), **fields))


def test_runs_like_python_main_py(box: ProcessSandbox) -> None:
    code = ("import atexit, os, sys, threading, time\n"
            "atexit.register(lambda: print('atexit ran'))\n"
            "threading.Thread(target=lambda: (time.sleep(0.05), print('thread joined'))).start()\n"
            "print(__name__, sys.argv, sys.path[0] == os.getcwd(), os.getuid() != 0)\n")
    outcome = run(box, code, "--flag", "x")
    assert outcome.stdout == ("__main__ ['main.py', '--flag', 'x'] True True\n"
                              "thread joined\natexit ran\n")
    assert outcome.exit_code == 0 and outcome.error is None


@pytest.mark.parametrize(("code", "exit_code", "stderr_end"), [
    ("raise ValueError('bad')", 1, "ValueError: bad\n"),
    ("import sys\nsys.exit('message')", 1, "message\n"),
    ("import sys\nsys.exit(7)", 7, ""),
    ("import os\nos._exit(5)", 5, ""),
])
def test_exit_statuses(box: ProcessSandbox, code: str, exit_code: int, stderr_end: str) -> None:
    outcome = run(box, code)
    assert outcome.exit_code == exit_code and outcome.stderr.endswith(stderr_end)


def test_signals_and_random_state_are_per_run(box: ProcessSandbox) -> None:
    killed = run(box, "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)")
    draws = {run(box, "import random\nprint(random.random())").stdout for _ in range(3)}
    assert killed.signal == signal.SIGTERM and killed.exit_code is None
    assert len(draws) == 3


def test_python_options_and_other_programs_are_executed(box: ProcessSandbox) -> None:
    flags = box.run(ExecRequest(files={}, argv=(PYTHON, "-c", "import sys; print(sys.flags.no_site)")))
    shell = box.run(ExecRequest(files={}, argv=("/bin/sh", "-c", "echo from sh")))
    assert (flags.stdout, shell.stdout) == ("1\n", "from sh\n")


def test_a_dead_server_is_restarted(box: ProcessSandbox) -> None:
    assert run(box, "print(1)").stdout == "1\n"
    [server] = box._executor.servers  # type: ignore[union-attr]
    starts, pid = server.starts, server.pid
    assert pid is not None
    os.killpg(pid, signal.SIGKILL)
    server._proc.wait()  # a death noticed mid-request is an error the grader retries instead
    assert run(box, "print(2)").stdout == "2\n"
    assert server.starts == starts + 1


def test_files_and_stdin_arrive_byte_for_byte(box: ProcessSandbox) -> None:
    """In subdirectories, empty, non-ASCII, larger than a pipe; stdin can be read again from
    its start."""
    files = {"pkg/data/\u00fc.txt": "\u00fcn\u00ef\x00\n" * 50_000, "empty.txt": "",
             "deep/a/b/c.txt": "c"}
    stdin = "line one\n\u00df\n" + "x" * 200_000
    code = ("import hashlib, sys\n"
            f"for name in {sorted(files)!r}:\n"
            "    data = open(name, 'rb').read()\n"
            "    print(name, len(data), hashlib.sha256(data).hexdigest())\n"
            "first = sys.stdin.read()\n"
            "sys.stdin.seek(0)\n"
            "print(len(first), first == sys.stdin.read(), hashlib.sha256(first.encode()).hexdigest())\n")
    outcome = box.run(ExecRequest(files={"main.py": code, **files}, argv=(PYTHON, "main.py"),
                                  stdin=stdin))
    expected = [f"{name} {len(text.encode())} {hashlib.sha256(text.encode()).hexdigest()}"
                for name, text in sorted(files.items())]
    expected.append(f"{len(stdin)} True {hashlib.sha256(stdin.encode()).hexdigest()}")
    assert outcome.stdout.splitlines() == expected, outcome.stderr


def test_files_that_cannot_be_laid_out_are_a_sandbox_error(box: ProcessSandbox) -> None:
    """A file where a directory must go: the server reports it, empties the work directory
    and serves the next execution."""
    outcome = box.run(ExecRequest(files={"main.py": "print(1)", "a": "x", "a/b.txt": "y"},
                                  argv=(PYTHON, "main.py")))
    assert outcome.error is not None and outcome.error.startswith("the fork-server could not")
    assert "FileExistsError" in outcome.error and "/sandbox/a" in outcome.error
    listing = run(box, "import os\nprint(sorted(os.listdir('.')))")
    assert listing.stdout == "['main.py']\n"


def test_a_setup_failure_in_the_server_is_a_sandbox_error(
    box: ProcessSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_boxed, "rlimits", lambda *_: {"RLIMIT_BOGUS": 1})
    outcome = run(box, "print(1)")
    assert outcome.error is not None and "RLIMIT_BOGUS" in outcome.error
    monkeypatch.undo()
    assert run(box, "print(1)").stdout == "1\n"


def test_a_server_that_cannot_start_is_a_sandbox_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with forkserver() as broken:
        broken._executor.interpreter = "/usr/bin/false"  # type: ignore[union-attr]
        outcome = run(broken, "print(1)")
    assert outcome.error is not None and "did not start" in outcome.error


def test_a_busy_server_is_never_shared() -> None:
    with forkserver(servers=2) as sandbox:
        executor = sandbox._executor
        first = run(sandbox, "import os\nprint(os.getuid())")
        held = executor._acquire()  # as a concurrent run would hold it
        second = run(sandbox, "import os\nprint(os.getuid())")
        executor._release(held)
        assert len(executor.servers) == 2 and first.ok and second.ok
        if os.geteuid() == 0:
            assert first.stdout != second.stdout  # each server drops to a uid of its own
        with ThreadPoolExecutor(4) as pool:
            outcomes = list(pool.map(lambda n: run(sandbox, f"print({n})"), range(12)))
        assert [o.stdout for o in outcomes] == [f"{n}\n" for n in range(12)]
        assert len(executor.servers) == 2


def test_helper_modules_are_imported_once_and_cannot_replace_the_servers(
    box: ProcessSandbox,
) -> None:
    code = "import r2r_helper\nprint(r2r_helper.VALUE)\n"
    outcomes = [run(box, code, modules={"r2r_helper": f"VALUE = {value}\n"})
                for value in (1, 1, 2)]
    assert [o.stdout for o in outcomes] == ["1\n", "1\n", "2\n"]
    clash = run(box, "print(1)", modules={"json": "VALUE = 1\n"})
    assert clash.error is not None and "would replace" in clash.error
    assert run(box, code, modules={"r2r_helper": "VALUE = 3\n"}).stdout == "3\n"


def test_a_server_started_from_a_short_lived_thread_outlives_it() -> None:
    with forkserver(servers=1) as sandbox:
        worker = threading.Thread(target=lambda: run(sandbox, "print(1)"))
        worker.start()
        worker.join()
        [server] = sandbox._executor.servers  # type: ignore[union-attr]
        assert server._proc is not None
        with pytest.raises(subprocess.TimeoutExpired):  # bwrap's --die-with-parent did not fire
            server._proc.wait(timeout=0.5)
        assert run(sandbox, "print(2)").stdout == "2\n" and server.starts == 1


def test_prestart_leaves_one_warm_server_for_the_first_run() -> None:
    with forkserver(servers=2) as sandbox:
        executor = sandbox._executor
        sandbox.prestart()
        deadline = time.monotonic() + 30
        while not (executor.servers and executor.servers[0].pid and executor._idle):  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "the prestarted server never came up"
            time.sleep(0.01)
        assert run(sandbox, "print(1)").stdout == "1\n"
        assert [s.starts for s in executor.servers] == [1]  # type: ignore[union-attr]


def test_an_execution_sees_only_the_server_and_itself(box: ProcessSandbox) -> None:
    """No process of an earlier execution is left, whether or not helper modules came."""
    code = ("import os\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()) "
            "== [1, os.getpid()])\n")
    assert run(box, code).stdout == "True\n"
    assert run(box, code, modules={"r2r_fresh": "VALUE = 1\n"}).stdout == "True\n"
    again = run(box, f"import r2r_fresh\n{code}", modules={"r2r_fresh": "VALUE = 1\n"})
    assert again.stdout == "True\n", again


def test_a_run_during_prestart_waits_for_that_server() -> None:
    """As in an xdist worker: the first item asks for a server while it still starts."""
    with forkserver(servers=2) as sandbox:
        sandbox.prestart()
        sandbox.prestart()  # a second call while one starts changes nothing
        assert run(sandbox, "print(1)").stdout == "1\n"
        assert [s.starts for s in sandbox._executor.servers] == [1]  # type: ignore[union-attr]


def test_prestart_of_a_server_that_cannot_start_leaves_the_error_to_the_run() -> None:
    with forkserver(servers=1) as broken:
        broken._executor.interpreter = "/usr/bin/false"  # type: ignore[union-attr]
        broken.prestart()
        outcome = run(broken, "print(1)")
    assert outcome.error is not None and "did not start" in outcome.error
