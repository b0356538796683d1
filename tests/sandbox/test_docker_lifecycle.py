"""The docker backend's containers on a real engine: nothing is left behind, whatever fails.

Start failures, an interpreter the server cannot use, a container killed mid-execution,
Ctrl-C, ``kill -9`` and a plain exit of the process that owns the sandbox, a connection
dropped on the way to a remote engine (``DOCKER_HOST=tcp://``, through a relay to the local
socket). Skipped, with the reason, where no engine answers.
"""

from __future__ import annotations

import fnmatch
import io
import os
import signal
import socket
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from pytester_output import shown_lines

from pytest_req2rank.sandbox import (
    PYTHON,
    ExecRequest,
    SandboxUnavailable,
    _docker,
    _docker_container,
)
from pytest_req2rank.sandbox._docker import DockerSandbox

from . import docker_engine
from .docker_engine import created_since, existing, now_ns, wait_until_gone

alone, docker_setup, engine_shared = (  # the shared fixtures (engine_shared: autouse)
    docker_engine.alone, docker_engine.docker_setup, docker_engine.engine_shared)
ROOT_DIR = Path(__file__).resolve().parents[2]
BENCHMARK = (ROOT_DIR / "benchmarks" / "test_benchmark.py").read_text()
ALIVE = ExecRequest(files={"main.py": "print('alive')"}, argv=(PYTHON, "main.py"))
NO_PYTHON_IMAGE = "r2r-sandbox-no-python:test"
OLD_PYTHON = """import json, os, sys
os.write(1, json.dumps({"interpreter": "/usr/bin/python3.8", "python": [3, 8, 18]}).encode()
         + b"\\n")
sys.exit(3)
"""
"""What the bootstrap reports from an image whose python3 is 3.8 (it parses on any Python 3)."""
CRASHING_SERVER = "import sys\nsys.exit('the server broke before it was ready')\n"
OWNER = """
import sys, time
from pytest_req2rank.sandbox import PYTHON, ExecRequest
from pytest_req2rank.sandbox._docker import DockerSandbox
box = DockerSandbox(sys.argv[1])
assert box.run(ExecRequest(files={"main.py": "print(1)"}, argv=(PYTHON, "main.py"))).ok
print("ready", flush=True)
if sys.argv[2] == "wait":
    time.sleep(120)
"""


def ours(client: Any, since: int, pid: int | None = None) -> list[str]:
    """Ids of the containers a process (default: this one) created since ``since``."""
    return [entry["id"] for entry in
            created_since(client, since, **{"r2r.pid": str(pid or os.getpid())})]


def no_python_image(client: Any) -> str:
    """An image whose root holds one text file: no interpreter at all."""
    if client.api.images(name=NO_PYTHON_IMAGE, quiet=True):
        return NO_PYTHON_IMAGE
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo("readme.txt")
        info.size = 5
        tar.addfile(info, io.BytesIO(b"empty"))
    repository, _, tag = NO_PYTHON_IMAGE.partition(":")
    client.api.import_image_from_data(buffer.getvalue(), repository=repository, tag=tag)
    return NO_PYTHON_IMAGE


def test_an_image_without_python_fails_to_start_and_leaves_nothing(
        docker_setup: tuple[Any, str]) -> None:
    client, _ = docker_setup
    since = now_ns()
    box = DockerSandbox(no_python_image(client))
    with box:
        first, second = box.run(ALIVE), box.run(ALIVE)
    for outcome in (first, second):
        assert outcome.error is not None and "cannot start a container" in outcome.error
        assert 'exec: "python3": executable file not found' in outcome.error
        assert "must run `python3`" in outcome.error and "\n" not in outcome.error
    assert second.error is not None and second.error.endswith("(not retried: every container "
                                                              "would fail alike)")
    created = ours(client, since)  # the second execution did not try another container
    assert len(created) == 1 and existing(client, created) == []


@pytest.mark.parametrize(("part", "says"), [
    ("boot", "python3 in r2r-sandbox-python:* is Python 3.8.18 (/usr/bin/python3.8); the image"),
    ("server", "the container's server ended: the server broke before it was ready; the image"),
], ids=("old-python", "crashing-server"))
def test_a_server_that_cannot_serve_leaves_nothing(docker_setup: tuple[Any, str], part: str,
                                                   says: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    client, image = docker_setup
    since = now_ns()
    box = DockerSandbox(image)
    with box:
        if part == "boot":
            monkeypatch.setattr(_docker_container, "BOOT", OLD_PYTHON)
        else:
            box._source = CRASHING_SERVER
        outcome, again = box.run(ALIVE), box.run(ALIVE)
        assert outcome.error is not None and fnmatch.fnmatch(outcome.error, f"*{says}*"), outcome
        assert again.error is not None and again.error.endswith("(not retried: every container "
                                                                "would fail alike)")
        assert box._live == []
    created = ours(client, since)
    assert len(created) == 1 and existing(client, created) == []


def test_a_container_killed_mid_execution_is_replaced(docker_setup: tuple[Any, str]) -> None:
    client, image = docker_setup
    since = now_ns()
    box = DockerSandbox(image)
    with box:
        assert box.run(ALIVE).ok
        (victim,) = [container.id for container in box._live]
        outcomes = []
        sleeper = ExecRequest(files={"main.py": "import time\ntime.sleep(60)"},
                              argv=(PYTHON, "main.py"), timeout_s=90)
        worker = threading.Thread(target=lambda: outcomes.append(box.run(sleeper)))
        worker.start()
        deadline = time.monotonic() + 30
        while len(client.api.top(victim)["Processes"]) < 2:  # the server and its child
            assert time.monotonic() < deadline, "the program never started"
            time.sleep(0.05)
        client.api.kill(victim)
        worker.join(60)
        (outcome,) = outcomes
        assert outcome.error is not None and outcome.error.startswith("docker: the container")
        assert box.run(ALIVE).stdout == "alive\n"
        assert [container.id for container in box._live] != [victim]
    created = ours(client, since)
    assert len(created) == 2 and wait_until_gone(client, created) == []


def test_closing_while_a_container_is_prestarted_leaves_nothing(
        docker_setup: tuple[Any, str]) -> None:
    client, image = docker_setup
    since = now_ns()
    box = DockerSandbox(image)
    box.prestart()
    box.close()  # at once: the prestart is still creating its container
    created = ours(client, since)
    assert len(created) == 1 and existing(client, created) == []
    assert box.run(ALIVE).error == "docker: the sandbox is closed"


@pytest.mark.parametrize("ending", ["exit", "kill -9"])
def test_the_owner_ending_leaves_nothing(docker_setup: tuple[Any, str], ending: str) -> None:
    """A process that never closes its sandbox: at a normal exit the sandbox removes its
    containers itself; killed, it cannot, and the container ends with its connection."""
    client, image = docker_setup
    since = now_ns()
    owner = subprocess.Popen([sys.executable, "-c", OWNER, image,
                              "exit" if ending == "exit" else "wait"],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None and owner.stdout.readline() == "ready\n"
        created = ours(client, since, owner.pid)
        assert len(created) == 1 and existing(client, created) == created
        if ending == "kill -9":
            owner.kill()
        owner.wait(60)
    finally:
        owner.kill()
    assert wait_until_gone(client, created) == []


def test_ctrl_c_during_a_run_leaves_nothing(docker_setup: tuple[Any, str], tmp_path: Path) -> None:
    client, image = docker_setup
    (tmp_path / "test_benchmark.py").write_text(BENCHMARK)
    since = now_ns()
    env = {**os.environ, "R2R_REFERENCE_CACHE": ""}  # cold: every task records, the run is long
    run = subprocess.Popen(
        [sys.executable, "-m", "pytest", "test_benchmark.py", f"--r2r-sandbox=docker:{image}",
         "--r2r-suite=humaneval", "-p", "no:xdist", "-p", "no:cacheprovider", "-q"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while not (created := ours(client, since, run.pid)):
            assert run.poll() is None and time.monotonic() < deadline, "no container started"
            time.sleep(0.1)
        time.sleep(1.0)  # a few items in
        run.send_signal(signal.SIGINT)
        output, _ = run.communicate(timeout=120)
    finally:
        run.kill()
    assert run.returncode == pytest.ExitCode.INTERRUPTED, output[-2000:]
    assert "KeyboardInterrupt" in output
    assert existing(client, ours(client, since, run.pid)) == [] and created


class Relay:
    """A TCP port that relays every connection to the engine's unix socket, as a remote
    engine is reached; :meth:`drop` cuts every connection, as a network failure would."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.connections: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.socket(socket.AF_UNIX)
            upstream.connect(self.target)
            self.connections += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(1 << 16):
                sink.sendall(chunk)
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def drop(self) -> None:
        for connection in self.connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            connection.close()

    def close(self) -> None:
        self.server.close()
        self.drop()


def test_a_remote_engine_over_tcp(docker_setup: tuple[Any, str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    client, image = docker_setup
    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    if not host.startswith("unix://"):
        pytest.skip(f"the relay reaches unix sockets only, not {host}")
    relay = Relay(host.removeprefix("unix://"))
    monkeypatch.setenv("DOCKER_HOST", f"tcp://127.0.0.1:{relay.port}")
    since = now_ns()
    try:
        box = DockerSandbox(image)
        assert f"on tcp://127.0.0.1:{relay.port};" in box.isolation
        echo = box.run(ExecRequest(files={"main.py": "print(input()[::-1])\n"
                                                     "open('out.txt', 'w').write('back')"},
                                   argv=(PYTHON, "main.py"), stdin="olleh\n",
                                   read_back=("out.txt",)))
        assert (echo.stdout, echo.files) == ("hello\n", {"out.txt": "back"}), echo
        created = ours(client, since)
        assert len(created) == 1
        relay.drop()  # the connection to the remote engine is gone: so is the container
        assert wait_until_gone(client, created) == []
        box.close()
    finally:
        relay.close()


def test_an_image_that_cannot_be_pulled_stops_the_run_with_one_line(
        pytester: pytest.Pytester, docker_setup: tuple[Any, str]) -> None:
    pytester.makepyfile(test_benchmark=BENCHMARK)
    result = pytester.runpytest_subprocess("--r2r-sandbox=docker:r2r-no-such-image:missing",
                                           "--r2r-suite=humaneval", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = shown_lines(result.stderr.lines)
    assert len(errors) == 1 and "INTERNALERROR" not in result.stdout.str(), errors
    assert "Docker image r2r-no-such-image:missing is not on the engine" in errors[0]
    assert "cannot be pulled" in errors[0] and "R2R_SANDBOX_IMAGE" in errors[0]
    with pytest.raises(SandboxUnavailable, match="cannot be pulled"):
        DockerSandbox("r2r-no-such-image:missing")


def derived_image(client: Any, image: str, name: str, changes: list[str]) -> str:
    """``image`` with Dockerfile-style ``changes`` (a commit of a never-started container),
    made once per test image."""
    tag = f"{name}:{image.rpartition(':')[2]}"
    if client.api.images(name=tag, quiet=True):
        return tag
    created = client.api.create_container(image, ["python3"])
    try:
        repository, _, version = tag.partition(":")
        client.api.commit(created["Id"], repository=repository, tag=version, changes=changes)
    finally:
        client.api.remove_container(created["Id"], force=True)
    return tag


def test_an_image_entrypoint_is_overridden(docker_setup: tuple[Any, str]) -> None:
    client, image = docker_setup
    odd = derived_image(client, image, "r2r-sandbox-entrypoint",
                        ['ENTRYPOINT ["/nonexistent/entrypoint.sh"]', "USER 0", "WORKDIR /usr"])
    box = DockerSandbox(odd)
    with box:
        assert box.run(ExecRequest(files={"main.py": "import os\nprint(os.getuid() > 0, "
                                                     "os.getcwd())"},
                                   argv=(PYTHON, "main.py"))).stdout == "True /sandbox\n"


def test_an_image_with_volumes_is_refused_before_any_container(
        docker_setup: tuple[Any, str]) -> None:
    client, image = docker_setup
    since = now_ns()
    with pytest.raises(SandboxUnavailable) as caught:
        DockerSandbox(derived_image(client, image, "r2r-sandbox-volume",
                                    ["VOLUME /data", "VOLUME /cache"]))
    assert fnmatch.fnmatch(str(caught.value), "Docker image r2r-sandbox-volume:* declares volumes "
                                              "(/cache, /data): they would be writable*")
    assert ours(client, since) == []


def test_leftovers_of_dead_owners_are_swept(docker_setup: tuple[Any, str], alone: None,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A container created but never started (its owner died in between) and one that stopped
    without being removed: the next sandbox's first container removes both."""
    client, image = docker_setup
    labels = {_docker_container.LABEL: "pytest-req2rank", "r2r.pid": "0"}
    never = client.api.create_container(image, ["python3", "-c", "pass"], labels=labels)["Id"]
    stopped = client.api.create_container(image, ["python3", "-c", "pass"], labels=labels)["Id"]
    client.api.start(stopped)
    client.api.wait(stopped, timeout=60)
    monkeypatch.setattr(_docker, "STALE_S", 0.0)
    box = DockerSandbox(image)
    with box:
        assert existing(client, [never, stopped]) == [never, stopped]
        assert box.run(ALIVE).ok
        assert existing(client, [never, stopped]) == []
