"""Laying files out in a work directory and reading them back, never outside it."""

from __future__ import annotations

import os
import posixpath
import shutil
import stat
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ..errors import Req2RankError


class PathEscape(Req2RankError, ValueError):
    """A file path that would land outside the work directory."""


def check_path(path: str) -> str:
    """The normalized relative path, or :class:`PathEscape` when it escapes or is not a file name."""
    normalized = posixpath.normpath(path) if path else ""
    if (
        not path
        or "\x00" in path
        or "\\" in path
        or normalized in (".", "..")
        or normalized.startswith(("/", "../"))
    ):
        raise PathEscape(f"file path {path!r} escapes the work directory")
    return normalized


def lay_out(work: Path, files: Mapping[str, str], owner: int | None) -> None:
    """Write ``files`` under ``work`` (subdirectories created); chown everything to ``owner``."""
    for name, content in files.items():
        target = work / check_path(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    if owner is not None:
        for root, dirs, names in os.walk(work):
            os.chown(root, owner, owner)
            for entry in (*dirs, *names):
                os.lchown(os.path.join(root, entry), owner, owner)


def read_back(work: Path, paths: Sequence[str], max_bytes: int) -> dict[str, str]:
    """Contents of the regular files ``paths`` under ``work``; symlinks and escapes are skipped."""
    found: dict[str, str] = {}
    root = os.path.realpath(work)
    for name in paths:
        target = os.path.join(root, check_path(name))
        if os.path.realpath(target) != target:  # a symlink somewhere on the way
            continue
        try:
            fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                continue
            found[name] = handle.read(max_bytes).decode("utf-8", errors="replace")
    return found


def remove_tree(path: Path) -> None:
    """Delete ``path`` even when the code under test made parts of it read-only."""

    def retry(func: Callable[..., object], failed: str, _exc: object) -> None:
        try:
            os.chmod(os.path.dirname(failed), 0o700)
            os.chmod(failed, 0o700)
        except OSError:
            pass
        func(failed)

    if path.exists():
        shutil.rmtree(path, onerror=retry)


def read_head(path: Path, max_bytes: int) -> tuple[str, bool]:
    """The first ``max_bytes`` of a file and whether it was longer."""
    with open(path, "rb") as handle:
        data = handle.read(max_bytes + 1)
    return data[:max_bytes].decode("utf-8", errors="replace"), len(data) > max_bytes


def read_tail(path: Path, max_bytes: int) -> tuple[str, bool]:
    """The last ``max_bytes`` of a file and whether it was longer."""
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > max_bytes:
            handle.seek(size - max_bytes)
        data = handle.read(max_bytes)
    return data.decode("utf-8", errors="replace"), size > max_bytes
