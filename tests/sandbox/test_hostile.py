"""The hostile corpus against every process mode that runs here, as root and as an unprivileged uid."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_req2rank.sandbox import PYTHON, ExecRequest, ProcessSandbox
from pytest_req2rank.sandbox._bwrap import usr_interpreter

from .hostile import ATTACKS, LEAVE, LIB, PEEK, Attack, Context, ipc_get, request, result

ROOT_DIR = Path(__file__).resolve().parents[2]
MODES = ("forkserver", "bwrap", "unshare")
SECRET = f"sk-r2r-test-{uuid.uuid4().hex}"
UNPRIVILEGED_UID = 65534
DEPENDENCIES = ("pydantic", "pydantic_core", "typing_extensions", "annotated_types",
                "typing_inspection", "pyseccomp")


@pytest.fixture(scope="module")
def listener() -> Iterator[socket.socket]:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        yield server


@pytest.fixture(scope="module")
def boxes() -> Iterator[dict[str, ProcessSandbox | str]]:
    found: dict[str, ProcessSandbox | str] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for mode in (*MODES, "other"):
            try:
                found[mode] = ProcessSandbox(mode="forkserver" if mode == "other" else mode)  # type: ignore[arg-type]
            except OSError as exc:
                found[mode] = str(exc)
    yield found
    for box in found.values():
        if isinstance(box, ProcessSandbox):
            box.close()


def context(listener: socket.socket, other_root: str, host_pid: int) -> Context:
    return Context(port=listener.getsockname()[1], checkout=str(ROOT_DIR), secret=SECRET,
                   marker=f"r2r-hostile-{uuid.uuid4().hex}",
                   outside=f"{tempfile.gettempdir()}/r2r-escape-{uuid.uuid4().hex}",
                   host_pid=host_pid, other_root=other_root, as_root=os.geteuid() == 0)


def server_starts(box: ProcessSandbox) -> int:
    """How many times the box's fork-servers were started (0 in the other modes)."""
    if box.mode != "forkserver":
        return 0
    return sum(server.starts for server in box._runner.servers)


def assert_no_connection(listener: socket.socket) -> None:
    with pytest.raises(BlockingIOError):
        listener.accept()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_attack_is_contained(attack: Attack, mode: str, boxes: dict[str, Any],
                             listener: socket.socket, monkeypatch: pytest.MonkeyPatch) -> None:
    box = boxes[mode]
    if isinstance(box, str):
        pytest.skip(f"mode {mode} cannot run here: {box}")
    if box.mode not in attack.modes:
        pytest.skip(f"{box.mode} has no filesystem view of its own (its isolation line says so)")
    monkeypatch.setenv("R2R_TEST_SECRET", SECRET)
    other = boxes["other"]
    ctx = context(listener, str(other.work_root) if isinstance(other, ProcessSandbox) else "/nonexistent",
                  os.getpid())
    alive = ExecRequest(files={"main.py": "print('alive')"}, argv=(PYTHON, "main.py"))
    assert box.run(alive).stdout == "alive\n"
    starts = server_starts(box)
    out = result(box.run(request(attack, ctx)), ctx)
    attack.check(out, ctx)
    assert_no_connection(listener)
    assert box.run(alive).stdout == "alive\n"
    if box.mode == "forkserver":
        assert server_starts(box) == starts, "the attack brought the fork-server down"


@pytest.mark.parametrize("mode", ("forkserver", "bwrap"))
def test_an_execution_cannot_read_an_earlier_ones_files(mode: str, boxes: dict[str, Any]) -> None:
    box = boxes[mode]
    if isinstance(box, str):
        pytest.skip(f"mode {mode} cannot run here: {box}")
    first = box.run(ExecRequest(files={"main.py": LEAVE}, argv=(PYTHON, "main.py")))
    assert first.exit_code == 0, first.stderr
    starts = server_starts(box)
    peek = box.run(ExecRequest(files={"main.py": PEEK},
                               argv=(PYTHON, "main.py", first.stdout.strip())))
    assert peek.exit_code == 0, peek.stderr
    found, ipc_objects, listing = peek.stdout.strip().split(" ", 2)
    assert (found, ipc_objects, eval(listing)) == ("[]", "000", ["main.py"]), peek
    assert server_starts(box) == starts, "cleaning up ended the fork-server"


@pytest.mark.parametrize("kind", range(3), ids=("shm", "sem", "msg"))
def test_each_kind_of_ipc_object_is_removed(kind: int, boxes: dict[str, Any]) -> None:
    """The server checks the kernel's count of each kind before it looks for objects."""
    box = boxes["forkserver"]
    if isinstance(box, str):
        pytest.skip(f"no fork-server here: {box}")
    made = box.run(ExecRequest(files={"main.py": f"{LIB}assert {ipc_get('0o1600')[kind]} >= 0\n"},
                               argv=(PYTHON, "main.py")))
    assert made.exit_code == 0, made.stderr
    peek = box.run(ExecRequest(files={"main.py": f"{LIB}print({ipc_get('0')[kind]})\n"},
                               argv=(PYTHON, "main.py")))
    assert peek.stdout == "-1\n", peek


@pytest.fixture(scope="module")
def unprivileged(listener: socket.socket) -> Iterator[dict[str, Any]]:
    """The corpus run by the driver as an unprivileged uid (root drops to it with setpriv)."""
    setpriv, interpreter = shutil.which("setpriv"), usr_interpreter()
    made = None
    if os.geteuid() != 0:
        tree, argv = ROOT_DIR, [sys.executable]
    elif setpriv is None or interpreter is None:
        pytest.skip("cannot drop to an unprivileged uid here (no setpriv or /usr interpreter)")
    else:
        tree = made = Path(tempfile.mkdtemp(prefix="r2r-unprivileged-"))  # pytest's is 0700
        tree.chmod(0o755)
        _copy_for_unprivileged(tree)
        argv = [setpriv, f"--reuid={UNPRIVILEGED_UID}", f"--regid={UNPRIVILEGED_UID}",
                "--clear-groups", "--", interpreter]
    fields = {"port": listener.getsockname()[1], "checkout": str(ROOT_DIR), "secret": SECRET,
              "marker": f"r2r-hostile-{uuid.uuid4().hex}",
              "outside": f"{tempfile.gettempdir()}/r2r-escape-{uuid.uuid4().hex}",
              "host_pid": 0, "other_root": "", "as_root": False}
    driver = tree / "tests" / "sandbox" / "unprivileged_driver.py"
    with _one_driver_at_a_time():
        done = _run_driver(argv, driver, fields, tree)
    if made is not None:
        shutil.rmtree(made)
    assert done.returncode == 0, done.stderr[-3000:]
    yield {"report": json.loads(done.stdout), "fields": fields}


@contextlib.contextmanager
def _one_driver_at_a_time() -> Iterator[None]:
    """Drivers of concurrent xdist workers share one uid, hence one process count: one's fork
    bomb made the other's ``unshare`` fail to fork (EAGAIN). See README, Sandbox."""
    with open(Path(tempfile.gettempdir()) / "r2r-unprivileged-driver.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _run_driver(argv: list[str], driver: Path, fields: dict[str, Any],
                tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*argv, "-S", str(driver), json.dumps(fields), *MODES], capture_output=True, text=True,
        timeout=300, check=False, cwd="/",
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{tree}:{tree / 'tests' / 'sandbox'}:{tree / 'deps'}",
             "R2R_TEST_SECRET": SECRET},
    )


def _copy_for_unprivileged(tree: Path) -> None:
    """The sandbox package, the corpus and the dependencies, readable by any uid."""
    package = ROOT_DIR / "pytest_req2rank"
    shutil.copytree(package / "sandbox", tree / "pytest_req2rank" / "sandbox",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for top in package.glob("*.py"):  # __init__.py and the modules it imports
        shutil.copy(top, tree / "pytest_req2rank")
    shutil.copytree(ROOT_DIR / "tests" / "sandbox", tree / "tests" / "sandbox",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in DEPENDENCIES:
        module = __import__(name)
        source = Path(module.__file__ or "")
        if source.name == "__init__.py":
            shutil.copytree(source.parent, tree / "deps" / name,
                            ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (tree / "deps").mkdir(exist_ok=True)
            shutil.copy(source, tree / "deps" / source.name)
    for path in tree.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_attack_is_contained_unprivileged(attack: Attack, mode: str,
                                          unprivileged: dict[str, Any]) -> None:
    report = unprivileged["report"]
    assert report["uid"] != 0
    entry = report[mode]
    if "unavailable" in entry:
        pytest.skip(f"mode {mode} cannot run unprivileged here: {entry['unavailable']}")
    if entry["mode"] not in attack.modes:
        pytest.skip(f"{entry['mode']} has no filesystem view of its own")
    assert "dropped from root" not in entry["isolation"]
    ctx = Context(**unprivileged["fields"])
    attack.check(entry["results"][attack.name], ctx)
