"""How an execution is started without bubblewrap: interpreter, namespaces, unprivileged uid —
detected once, by trial.

Modes:

``namespaces`` (root)
    ``unshare --net --pid --ipc --fork --kill-child -- setpriv --reuid U --regid U
    --clear-groups --pdeathsig KILL -- python …``. A fresh uid per execution makes
    RLIMIT_NPROC bite (root ignores it) without one execution's fork bomb
    starving another's; the pid namespace makes every descendant, ``setsid``
    daemons included, die with its first process, and the ipc namespace every
    System V IPC object and POSIX message queue the run made. ``setpriv`` sets the
    parent-death signal *after* dropping the uid (a uid change clears the one
    ``unshare --kill-child`` set).
``userns`` (not root, unprivileged user namespaces allowed)
    ``unshare --user --map-root-user --net --pid --ipc --fork --kill-child -- python …``.
``rlimits``
    a plain child in its own session, killed by process group: a ``setsid``
    daemon can escape, and as root nothing stops a fork bomb.

None of them has a filesystem view of its own: they run only when named
(``process:unshare``, ``process:rlimits``), and say so with a WARNING.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Mode = Literal["namespaces", "userns", "rlimits"]

PYTHON_FLAGS = ("-S", "-B")
"""No site (stdlib only, no .pth start-up cost), no bytecode files. Not ``-I``: it implies
``-E``, which would ignore the PYTHONHASHSEED we set, and ``-P``, which would drop the
work directory from ``sys.path`` and break multi-file answers. The environment is
entirely ours, so ``-E`` would protect nothing."""

UID_BASE = 2_000_000_000
UID_SPAN = 100_000_000
"""Execution uids are drawn from here: no account, no file and no other process owns them."""

LAUNCHER_PROGRAMS = ("unshare", "setpriv")


@dataclass(frozen=True)
class Launcher:
    """Turns a program's argv into the argv that starts it under the chosen isolation."""

    mode: Mode
    interpreter: str
    version: str
    unshare: str = ""
    setpriv: str = ""

    def wrap(self, argv: Sequence[str], uid: int | None) -> list[str]:
        if self.mode == "namespaces":
            return [
                self.unshare, "--net", "--pid", "--ipc", "--fork", "--kill-child", "--",
                self.setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                "--pdeathsig=KILL", "--", *argv,
            ]
        if self.mode == "userns":
            return [
                self.unshare, "--user", "--map-root-user", "--net", "--pid", "--ipc", "--fork",
                "--kill-child", "--", *argv,
            ]
        return list(argv)

    def python(self) -> list[str]:
        return [self.interpreter, *PYTHON_FLAGS]

    def pick_uid(self) -> int | None:
        return UID_BASE + secrets.randbelow(UID_SPAN) if self.mode == "namespaces" else None

    @property
    def isolation(self) -> str:
        python = f"python {self.version} ({self.interpreter})"
        if self.mode == "namespaces":
            return (
                f"process: WARNING no filesystem isolation (process:unshare): the code reads "
                f"and writes the host's files as any other user may; own uid per run, pid, "
                f"ipc and network namespaces; rlimits, empty env, private work dir; {python}"
            )
        if self.mode == "userns":
            return (
                f"process: WARNING no filesystem isolation (process:unshare): the code reads "
                f"and writes the host's files as you may; user, pid, ipc and network "
                f"namespaces; rlimits, empty env, private work dir; {python}"
            )
        root = os.geteuid() == 0
        return (
            f"process: WARNING no isolation (process:rlimits): the code reads and writes the "
            f"host's files as {'root' if root else 'you'} may, reaches the network, and "
            f"daemons can escape{' and fork bombs are not contained' if root else ''}; "
            f"rlimits, empty env, private work dir; {python}"
        )


def detect_launcher(mode: Literal["unshare", "rlimits"]) -> Launcher:
    """The launcher of ``mode`` that works here (a trial program runs first); ``OSError``
    when none does. ``unshare`` is ``namespaces`` as root and ``userns`` otherwise, never
    the weaker ``rlimits``: a weaker mode runs only when it is named."""
    own = os.path.realpath(sys.executable)
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    tools = {name: shutil.which(name, path="/usr/bin:/bin:/usr/sbin:/sbin") or ""
             for name in LAUNCHER_PROGRAMS}
    failures: list[str] = []
    if mode == "rlimits":
        found = trial_run(Launcher("rlimits", own, ""), version, failures)
    elif os.geteuid() == 0:
        missing = [name for name, path in tools.items() if not path]
        if missing:
            raise OSError(f"{' and '.join(missing)} not found (util-linux)")
        found = None
        for interpreter in _reachable_interpreters(own, version):
            launcher = Launcher("namespaces", interpreter, "", tools["unshare"], tools["setpriv"])
            found = trial_run(launcher, version, failures)
            if found:
                break
        if not failures and not found:
            failures.append("no interpreter of this Python version that another uid can run")
    elif not tools["unshare"]:
        raise OSError("unshare not found (util-linux)")
    else:
        found = trial_run(Launcher("userns", own, "", tools["unshare"]), version, failures)
    if found:
        return found
    raise OSError("cannot start the interpreter for sandboxed runs: " + "; ".join(failures))


def _reachable_interpreters(own: str, version: str) -> list[str]:
    """Interpreters of this Python version that an unprivileged uid can execute.

    The running one first; when it lives under a private home (pyenv under /root),
    the system's ``python3.X`` of the same version.
    """
    names = [own, f"/usr/bin/python{version}", f"/usr/local/bin/python{version}"]
    return [path for path in dict.fromkeys(names) if _world_executable(path)]


def _world_executable(path: str) -> bool:
    target = Path(os.path.realpath(path))
    try:
        if not target.stat().st_mode & stat.S_IXOTH:
            return False
        return all(parent.stat().st_mode & stat.S_IXOTH for parent in target.parents)
    except OSError:
        return False


def trial_run(launcher: Launcher, version: str, failures: list[str]) -> Launcher | None:
    """Run a trivial program through ``launcher``; the launcher with the version found, or None."""
    argv = launcher.wrap(
        [*launcher.python(), "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
        launcher.pick_uid(),
    )
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30,
                              env={"PATH": "/usr/bin:/bin"}, cwd="/", check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        failures.append(f"{launcher.mode}: {exc}")
        return None
    found = done.stdout.strip()
    if done.returncode != 0 or not found.startswith(version + "."):
        detail = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        failures.append(f"{launcher.mode} with {launcher.interpreter}: {detail}")
        return None
    return Launcher(launcher.mode, launcher.interpreter, found, launcher.unshare, launcher.setpriv)


def launcher_failed(exit_code: int | None, stderr: str) -> bool:
    """True when the output looks like the launcher itself failed (to be confirmed by a trial)."""
    return exit_code not in (0, None) and stderr.lstrip().startswith(
        tuple(f"{name}: " for name in LAUNCHER_PROGRAMS)
    )
