"""The docker backend through the real docker SDK, against a fake engine on a unix socket."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_req2rank.sandbox import PYTHON, ExecRequest, Limits, SandboxUnavailable, create_sandbox
from pytest_req2rank.sandbox._docker import DockerSandbox

from .fake_docker import FakeEngine


@pytest.fixture()
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeEngine]:
    server = FakeEngine(str(tmp_path / "docker.sock"), tmp_path)
    server.start()
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path / 'docker.sock'}")
    monkeypatch.setenv("R2R_SANDBOX_IMAGE", "example/python:test")
    yield server
    server.shutdown()
    server.server_close()


def test_container_is_locked_down(engine: FakeEngine) -> None:
    box = create_sandbox("docker")
    assert isinstance(box, DockerSandbox) and box.isolation.startswith("docker: container")
    created = engine.created
    host = created["HostConfig"]
    assert created["Image"] == "example/python:test" and created["User"] == "65534:65534"
    assert created["Cmd"] == ["sleep", "infinity"]
    assert host["NetworkMode"] == "none" and host["ReadonlyRootfs"] is True
    assert host["CapDrop"] == ["ALL"] and host["SecurityOpt"] == ["no-new-privileges"]
    assert host["PidsLimit"] > 0 and host["Memory"] == host["MemorySwap"] > 0
    assert set(host["Tmpfs"]) == {"/tmp", "/work"}
    assert "OPENAI_API_KEY" not in json.dumps(created["Env"])
    box.close()
    assert engine.removed


def test_runs_a_program_through_exec(engine: FakeEngine) -> None:
    with create_sandbox("docker") as box:
        outcome = box.run(ExecRequest(
            files={"main.py": "import sys\nfrom pkg.twice import twice\nprint(twice(int(input())))\n"
                              "open('out.txt', 'w').write('kept')\nsys.exit(3)\n",
                   "pkg/__init__.py": "", "pkg/twice.py": "def twice(x):\n    return 2 * x\n"},
            argv=(PYTHON, "main.py"), stdin="21\n", read_back=("out.txt",)))
        timed = box.run(ExecRequest(files={"main.py": "while True:\n    pass\n"},
                                    argv=(PYTHON, "main.py"), timeout_s=0.3))
        flood = box.run(ExecRequest(files={"main.py": "print('x' * 50_000)"},
                                    argv=(PYTHON, "main.py"),
                                    limits=Limits(output_bytes=1000)))
    assert (outcome.stdout, outcome.exit_code, outcome.files) == ("42\n", 3, {"out.txt": "kept"})
    assert outcome.error is None and not outcome.timed_out
    assert timed.timed_out and timed.signal == 9 and timed.error is None
    assert flood.output_truncated and len(flood.stdout) == 1000
    execs = [call for call in engine.calls if call[1] == "/containers/c0ffee/exec"]
    assert all(json.loads(body)["User"] == "65534:65534" for _, _, body in execs)
    assert list((engine.root / "work").iterdir()) == []  # the runner removed each run


def test_a_broken_runner_is_a_sandbox_error(engine: FakeEngine,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    with create_sandbox("docker") as box:
        monkeypatch.setattr(box, "_runner", b"raise SystemExit('runner broke')\n")
        outcome = box.run(ExecRequest(files={"main.py": "print(1)"}, argv=(PYTHON, "main.py")))
    assert outcome.error is not None and "runner failed" in outcome.error


def test_rejects_escaping_paths(engine: FakeEngine) -> None:
    with create_sandbox("docker") as box:
        outcome = box.run(ExecRequest(files={"../x.py": "1"}, argv=(PYTHON, "x.py")))
    assert outcome.error is not None and "escapes" in outcome.error


def test_no_engine_is_a_clean_one_line_error(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path / 'nothing.sock'}")
    with pytest.raises(SandboxUnavailable) as caught:
        create_sandbox("docker")
    message = str(caught.value)
    assert "\n" not in message and "no Docker engine answers" in message
    assert "--r2r-sandbox=process" in message and str(tmp_path) in message


def test_fake_engine_is_not_reached_without_docker_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    if os.path.exists("/var/run/docker.sock"):
        pytest.skip("a real Docker engine socket exists here")
    with pytest.raises(SandboxUnavailable, match="the local socket"):
        create_sandbox("docker")
