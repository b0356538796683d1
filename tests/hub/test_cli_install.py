"""``req2rank-hub`` as a user meets it: on a plain install (no ``hub`` extra) one line says
what to install; ``serve`` says where it listens once it answers."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from hub_server import free_port, stop

from pytest_req2rank.hub.cli import HUB_EXTRA_MODULES

INSTALL_LINE = ("req2rank-hub: the hub needs the 'hub' extra ({missing} not installed): "
                "pip install 'pytest-req2rank[hub]'")


def _without(modules: tuple[str, ...], *argv: str) -> subprocess.CompletedProcess[str]:
    """``req2rank-hub ARGV`` (its module run as the console script does) in a Python that
    cannot import ``modules``, as on an install without them."""
    hide = "".join(f"sys.modules[{name!r}] = None\n" for name in modules)
    program = (f"import runpy, sys\n{hide}sys.argv = ['req2rank-hub', *{list(argv)!r}]\n"
               "runpy.run_module('pytest_req2rank.hub.cli', run_name='__main__')\n")
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.parametrize("argv", [(), ("--help",), ("serve",)], ids=["bare", "help", "serve"])
def test_a_plain_install_says_what_to_install(argv: tuple[str, ...]) -> None:
    run = _without(HUB_EXTRA_MODULES, *argv)
    missing = ", ".join(HUB_EXTRA_MODULES)
    assert (run.returncode, run.stdout, run.stderr) == (
        1, "", INSTALL_LINE.format(missing=missing) + "\n")


def test_one_missing_module_is_named() -> None:
    run = _without(("fastapi",), "--help")
    assert (run.returncode, run.stderr) == (1, INSTALL_LINE.format(missing="fastapi") + "\n")


def test_serve_says_where_it_listens_once_it_answers(tmp_path: Path) -> None:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "pytest_req2rank.hub.cli", "serve", "--port", str(port)],
        env={**os.environ, "R2R_HUB_DIR": str(tmp_path), "R2R_HUB_REVERIFY_EVERY": "0",
             "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in server.stdout or []],
                     daemon=True).start()
    try:
        deadline = time.monotonic() + 60
        shown: list[str] = []
        while not any("serving" in line for line in shown) and time.monotonic() < deadline:
            try:
                shown.append(lines.get(timeout=1).rstrip("\n"))
            except queue.Empty:
                assert server.poll() is None, f"serve ended: {shown}"
        address = f"http://127.0.0.1:{port}/"
        assert shown == [f"req2rank-hub: serving {address} (Ctrl-C to stop)"]
        assert httpx.get(f"{address}healthz", timeout=10).status_code == 200
    finally:
        stop(server)
