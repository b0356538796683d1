"""The fork-server mode: programs run as `python main.py` would, and its own faults are sandbox errors."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_req2rank.sandbox import PYTHON, ExecOutcome, ExecRequest, ProcessSandbox
from pytest_req2rank.sandbox import _boxed


@pytest.fixture(scope="module")
def box() -> Iterator[ProcessSandbox]:
    try:
        sandbox = ProcessSandbox(mode="forkserver")
    except OSError as exc:
        pytest.skip(f"no bubblewrap fork-server here: {exc}")
    with sandbox:
        yield sandbox


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
    server = box._runner.server  # type: ignore[union-attr]
    starts, pid = server.starts, server.pid
    assert pid is not None
    os.killpg(pid, signal.SIGKILL)
    server._proc.wait()  # a death noticed mid-request is an error the grader retries instead
    assert run(box, "print(2)").stdout == "2\n"
    assert server.starts == starts + 1


def test_a_setup_failure_in_the_server_is_a_sandbox_error(
    box: ProcessSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_boxed, "rlimits", lambda *_: {"RLIMIT_BOGUS": 1})
    outcome = run(box, "print(1)")
    assert outcome.error is not None and "RLIMIT_BOGUS" in outcome.error
    monkeypatch.undo()
    assert run(box, "print(1)").stdout == "1\n"


def test_a_server_that_cannot_start_is_a_sandbox_error(monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        broken = ProcessSandbox(mode="forkserver")
    except OSError as exc:
        pytest.skip(f"no bubblewrap fork-server here: {exc}")
    with broken:
        broken._runner.server.interpreter = "/usr/bin/false"  # type: ignore[union-attr]
        outcome = run(broken, "print(1)")
    assert outcome.error is not None and "did not start" in outcome.error
