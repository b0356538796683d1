"""The docker backend on a real engine: containment, the hostile corpus, HumanEval through the plugin.

Skipped, with the reason, where no engine answers (``.ci/docker-engine.sh`` starts one).
"""

from __future__ import annotations

import json
import os
import socket
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_req2rank.sandbox import PYTHON, ExecRequest, Limits, create_sandbox
from pytest_req2rank.sandbox._docker import DockerSandbox

from . import docker_engine
from .docker_engine import created_since, existing, now_ns
from .hostile import ATTACKS, Attack, Context, leave_then_peek, request, result

alone, docker_setup, engine_shared = (  # the shared fixtures (engine_shared: autouse)
    docker_engine.alone, docker_engine.docker_setup, docker_engine.engine_shared)
ROOT_DIR = Path(__file__).resolve().parents[2]
SECRET = f"sk-r2r-test-{uuid.uuid4().hex}"
BENCHMARK = (ROOT_DIR / "benchmarks" / "test_benchmark.py").read_text()
ALIVE = ExecRequest(files={"main.py": "print('alive')"}, argv=(PYTHON, "main.py"))
PROBE = r"""
import json, os
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
print(json.dumps({
    "uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(), "ppid": os.getppid(),
    "caps": [status[k].strip() for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")],
    "no_new_privs": status["NoNewPrivs"].strip(), "seccomp": status["Seccomp"].strip(),
    "interfaces": sorted(os.listdir("/sys/class/net")),
    "root_read_only": bool(os.statvfs("/").f_flag & os.ST_RDONLY),
    "processes": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
    "cwd": os.getcwd(), "listing": sorted(os.listdir(".")), "env": dict(os.environ),
    "limits": open("/proc/self/limits").read(),
}))
"""


@pytest.fixture(scope="module")
def box(docker_setup: tuple[Any, str]) -> Iterator[DockerSandbox]:
    sandbox = DockerSandbox(docker_setup[1])
    yield sandbox
    sandbox.close()


@pytest.fixture(scope="module")
def listener() -> Iterator[socket.socket]:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        yield server


def container_ids(box: DockerSandbox) -> list[str]:
    return [container.id for container in box._live if container.id]


def test_isolation_is_answered_without_a_container(docker_setup: tuple[Any, str]) -> None:
    client, image = docker_setup
    since = now_ns()
    with create_sandbox(f"docker:{image}") as sandbox:
        assert sandbox.isolation_level == "full"
        assert sandbox.isolation.startswith(f"docker: image {image} on ")
    assert created_since(client, since, **{"r2r.pid": str(os.getpid())}) == []


def test_a_container_is_locked_down(box: DockerSandbox, docker_setup: tuple[Any, str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("R2R_TEST_SECRET", SECRET)
    outcome = box.run(ExecRequest(files={"main.py": PROBE}, argv=(PYTHON, "main.py")))
    assert outcome.exit_code == 0, outcome
    seen = json.loads(outcome.stdout)
    assert seen["uid"] == seen["gid"] and seen["uid"] not in (0, 65534)
    assert set(seen["groups"]) <= {seen["gid"]}
    assert seen["caps"] == ["0000000000000000"] * 5
    assert seen["no_new_privs"] == "1" and seen["seccomp"] == "2"
    assert seen["interfaces"] == ["lo"] and seen["root_read_only"]
    assert seen["ppid"] == 1 and len(seen["processes"]) == 2  # the server and the program
    assert seen["cwd"] == "/sandbox" and seen["listing"] == ["main.py"]
    assert seen["env"]["HOME"] == "/sandbox" and SECRET not in json.dumps(seen["env"])
    assert "R2R_TEST_SECRET" not in seen["env"] and "DOCKER_HOST" not in seen["env"]
    assert "Max processes             33" in seen["limits"]  # Limits().processes + the server
    (ident,) = container_ids(box)
    attrs = docker_setup[0].api.inspect_container(ident)
    host = attrs["HostConfig"]
    assert host["NetworkMode"] == "none" and host["ReadonlyRootfs"] is True
    assert host["CapDrop"] == ["ALL"] and host["SecurityOpt"] == ["no-new-privileges"]
    assert host["Privileged"] is False and host["AutoRemove"] is True
    assert host["Memory"] == host["MemorySwap"] == box.memory_mb * 1024 * 1024
    assert host["PidsLimit"] > 0 and host["NanoCpus"] == 10**9
    assert set(host["Tmpfs"]) == {"/sandbox", "/tmp", "/dev/shm"} and not host["Binds"]
    assert attrs["Config"]["User"] == f"{seen['uid']}:{seen['gid']}"


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_attack_is_contained(attack: Attack, box: DockerSandbox, listener: socket.socket,
                             tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("R2R_TEST_SECRET", SECRET)
    ctx = Context(port=listener.getsockname()[1], checkout=str(ROOT_DIR), secret=SECRET,
                  marker=f"r2r-hostile-{uuid.uuid4().hex}",
                  outside=f"{tempfile.gettempdir()}/r2r-escape-{uuid.uuid4().hex}",
                  host_pid=os.getpid(), other_root=str(tmp_path), as_root=True)
    assert box.run(ALIVE).stdout == "alive\n"
    before = container_ids(box)
    attack.check(result(box.run(request(attack, ctx)), ctx), ctx)
    with pytest.raises(BlockingIOError):
        listener.accept()
    assert box.run(ALIVE).stdout == "alive\n"
    assert container_ids(box) == before, "the attack brought the container down"


def test_an_execution_cannot_read_an_earlier_ones_files(box: DockerSandbox) -> None:
    before = leave_then_peek(box, lambda: container_ids(box))
    assert container_ids(box) == before, "cleaning up replaced the container"


def test_trees_past_path_max_and_a_locked_work_dir_are_emptied(box: DockerSandbox) -> None:
    deep = ("import os\nfor _ in range(400):\n    os.mkdir('d' * 40)\n    os.chdir('d' * 40)\n"
            "open('f', 'w').write('x')\nos.chmod('.', 0)\nos.chdir('/sandbox')\n"
            "print(len(os.getcwd()) + 400 * 41 > 4096)\nos.chmod('/sandbox', 0)\n")
    made = box.run(ExecRequest(files={"main.py": deep}, argv=(PYTHON, "main.py")))
    assert made.stdout == "True\n" and made.exit_code == 0, made
    before = container_ids(box)
    listing = box.run(ExecRequest(files={"main.py": "import os\nprint(os.listdir('.'))"},
                                  argv=(PYTHON, "main.py")))
    assert listing.stdout == "['main.py']\n", listing
    assert container_ids(box) == before


def test_limits_and_outputs(box: DockerSandbox) -> None:
    echo = box.run(ExecRequest(
        files={"main.py": "import sys\nfrom pkg.twice import twice\nprint(twice(int(input())))\n"
                          "open('out.txt', 'w').write('kept')\nos = __import__('os')\n"
                          "os.symlink('/etc/hostname', 'link.txt')\nsys.exit(3)\n",
               "pkg/__init__.py": "", "pkg/twice.py": "def twice(x):\n    return 2 * x\n"},
        argv=(PYTHON, "main.py"), stdin="21\n", read_back=("out.txt", "link.txt", "none.txt")))
    assert (echo.stdout, echo.exit_code, echo.files) == ("42\n", 3, {"out.txt": "kept"})
    noisy = "import sys\nsys.stderr.write('e' * 5000 + 'END')"
    errors = box.run(ExecRequest(files={"main.py": noisy}, argv=(PYTHON, "main.py"),
                                 limits=Limits(output_bytes=100)))
    assert errors.output_truncated and errors.stderr == "e" * 97 + "END"
    cpu = box.run(ExecRequest(files={"main.py": "while True:\n    pass\n"},
                              argv=(PYTHON, "main.py"), timeout_s=5, limits=Limits(cpu_s=1)))
    assert cpu.signal == 24 and not cpu.timed_out  # SIGXCPU at the CPU limit, before the wall
    flags = ("import sys, helper; print(helper.FLAGS, sys.flags.no_user_site, "
             "sys.flags.dont_write_bytecode, sys.flags.hash_randomization)")
    fresh = box.run(ExecRequest(  # not a script: a fresh interpreter, helper modules as files
        files={}, modules={"helper": "FLAGS = 'helper'"}, argv=(PYTHON, "-c", flags)))
    assert fresh.stdout == "helper 1 1 0\n", fresh
    for files, argv in (({"../x.py": "1"}, (PYTHON, "x.py")), ({}, (PYTHON, "../x.py"))):
        escape = box.run(ExecRequest(files=files, argv=argv))
        assert escape.error is not None and "escapes the work directory" in escape.error


@pytest.mark.slow  # the fast loop keeps the backend's own engine tests
def test_humaneval_through_the_plugin(pytester: pytest.Pytester, docker_setup: tuple[Any, str],
                                      alone: None) -> None:
    client, image = docker_setup
    pytester.makepyfile(test_benchmark=BENCHMARK)
    since = now_ns()
    run = pytester.runpytest_subprocess(f"--r2r-sandbox=docker:{image}", "--r2r-suite=humaneval",
                                        "--r2r-json=results.json", "-n", "2", timeout=600)
    created = created_since(client, since)
    assert run.ret == pytest.ExitCode.OK, run.stdout.str()[-3000:]
    run.stdout.fnmatch_lines([f"req2rank: sandbox isolation full | docker: image {image} on *",
                               "*164 passed*"])
    items = json.loads((pytester.path / "results.json").read_text())["items"]
    assert len(items) == 164 and {item["status"] for item in items} == {"success"}
    # one container per worker, prestarted and kept for all its items; none by the controller
    assert len(created) == 2 and len({entry["r2r.pid"] for entry in created}) == 2, created
    assert existing(client, [entry["id"] for entry in created]) == []
