"""Runs one execution inside the docker backend's container; prints one JSON result line.

Copied into the container with every execution; never imports the plugin.
``argv[1]``: the spec (JSON) — ``dir`` (holds ``work/`` and ``stdin``), ``argv``,
``timeout_s``, ``limits`` (rlimits by name), ``output_bytes``, ``read_back``.
The program runs in its own session with stdio on files, never on our stdout,
so it cannot forge this line; we are not dumpable, so it cannot reach our fds.
After it ends (or is killed at the timeout) every other process of the
container is killed — only when pid 1 is the container's keeper, so a
misdirected run on a host cannot signal anything outside its container.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time

KEEPER = b"sleep\x00infinity\x00"


def limit(limits: dict) -> None:
    for name, value in limits.items():
        hard = value + 1 if name == "RLIMIT_CPU" else value
        resource.setrlimit(getattr(resource, name), (value, hard))


def sweep() -> None:
    """Kill every other process of the container and empty /tmp — inside our container only."""
    try:
        with open("/proc/1/cmdline", "rb") as handle:
            if handle.read() != KEEPER:
                return
    except OSError:
        return
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    for entry in os.scandir("/tmp"):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            try:
                os.unlink(entry.path)
            except OSError:
                pass


def head(path: str, cap: int) -> tuple[str, bool]:
    with open(path, "rb") as handle:
        data = handle.read(cap + 1)
    return data[:cap].decode("utf-8", errors="replace"), len(data) > cap


def main() -> None:
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 0
    spec = json.loads(sys.argv[1])
    run = spec["dir"]
    work = os.path.join(run, "work")
    env = {**spec["env"], "HOME": work}
    started = time.perf_counter()
    with open(os.path.join(run, "stdin"), "rb") as stdin, \
            open(os.path.join(run, "stdout"), "wb") as out, \
            open(os.path.join(run, "stderr"), "wb") as err:
        proc = subprocess.Popen(spec["argv"], stdin=stdin, stdout=out, stderr=err, cwd=work,
                                env=env, start_new_session=True,
                                preexec_fn=lambda: limit(spec["limits"]))  # noqa: PLW1509
        try:
            code = proc.wait(spec["timeout_s"])
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            code, timed_out = proc.wait(), True
    duration = time.perf_counter() - started
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    sweep()
    cap = spec["output_bytes"]
    stdout, out_cut = head(os.path.join(run, "stdout"), cap)
    stderr, err_cut = head(os.path.join(run, "stderr"), cap)
    files = {}
    for name in spec["read_back"]:
        path = os.path.join(work, name)
        if os.path.realpath(path) == path and os.path.isfile(path):
            files[name] = head(path, cap)[0]
    shutil.rmtree(run, ignore_errors=True)
    print(json.dumps({"code": code, "timed_out": timed_out, "duration_s": duration,
                      "stdout": stdout, "stderr": stderr, "truncated": out_cut or err_cut,
                      "files": files}))


if __name__ == "__main__":
    main()
