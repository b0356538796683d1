"""Build a minimal sandbox image offline, from this machine's own Python, and load it into Docker.

The image holds a Python interpreter under ``/usr`` (``/usr/bin/python3.X``, with a
``python3`` link next to it), the shared libraries it and its extension modules load
(found with ``ldd``) and its standard library (no ``site-packages``, no build files) —
nothing else: no shell, no ``/etc``, no users. About 50 MB; no registry is reached.
The tag is derived from what goes in (paths, sizes, modes, modification times), so a
second build of the same interpreter finds the image and returns at once.

Run ``python tests/sandbox/docker_image.py [--python /usr/bin/python3.11]``: prints the
tag; ``R2R_SANDBOX_IMAGE=<tag> pytest --r2r-sandbox=docker`` then uses it. Tests import
:func:`ensure_image`. Exit status 1, with the reason on stderr, when no engine answers
or nothing can be built here.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import stat
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

REPOSITORY = "r2r-sandbox-python"
CANDIDATES = ("/usr/bin/python3", "/usr/local/bin/python3")
SKIPPED = ("site-packages", "dist-packages", "test", "tests", "idlelib", "tkinter", "turtledemo",
           "ensurepip", "lib2to3", "config-")
"""Standard-library entries left out: installed packages, tests, GUIs, build files."""
CHANGES = ["ENV PATH=/usr/local/bin:/usr/bin:/bin", 'CMD ["python3"]']
_LDD_PATH = re.compile(r"(?:=>\s*)?(/\S+)\s+\(0x")


def find_python(explicit: str | None = None) -> str:
    """An interpreter outside any virtualenv or pyenv: ``explicit``, else the system's."""
    for path in ([explicit] if explicit else CANDIDATES):
        if path and os.access(path, os.X_OK):
            return os.path.realpath(path)
    raise FileNotFoundError(f"no system Python at {', '.join(CANDIDATES)} (pass --python PATH)")


def _describe(python: str) -> dict[str, Any]:
    probe = ("import json, sys, sysconfig; print(json.dumps({'stdlib': sysconfig.get_paths()"
             "['stdlib'], 'dynload': sysconfig.get_config_var('DESTSHARED'), 'version': "
             "'%d.%d' % sys.version_info[:2], 'prefix': sys.prefix}))")
    done = subprocess.run([python, "-I", "-S", "-c", probe], capture_output=True, text=True,
                          check=True, timeout=60)
    info: dict[str, Any] = json.loads(done.stdout)
    if not info["stdlib"].startswith("/usr/"):
        raise FileNotFoundError(f"{python} keeps its standard library at {info['stdlib']}, "
                                "not under /usr (pass a system interpreter with --python)")
    return info


def _libraries(binaries: Iterable[str]) -> set[str]:
    """The shared libraries ``binaries`` load, as ``ldd`` names them."""
    found: set[str] = set()
    for binary in binaries:
        done = subprocess.run(["ldd", binary], capture_output=True, text=True, check=False,
                              timeout=60)
        found.update(match.group(1) for match in map(_LDD_PATH.search, done.stdout.splitlines())
                     if match)
    return found


def _with_links(path: str, entries: dict[str, str | None]) -> None:
    """Add ``path`` and every symlink met on the way to it (``entries``: path → link target,
    None for a file or directory)."""
    parts = Path(path).parts[1:]
    current = "/"
    for index, part in enumerate(parts):
        current = os.path.join(current, part)
        if os.path.islink(current):
            target = os.readlink(current)
            entries[current] = target
            resolved = os.path.normpath(os.path.join(os.path.dirname(current), target))
            _with_links(os.path.join(resolved, *parts[index + 1:]), entries)
            return
        entries.setdefault(current, None)


def image_entries(python: str) -> dict[str, str | None]:
    """Everything the image holds: path → link target (None: a file or directory)."""
    info = _describe(python)
    entries: dict[str, str | None] = {}
    version = info["version"]
    _with_links(python, entries)
    for alias in (f"/usr/bin/python{version}", "/usr/bin/python3"):
        if alias != python:
            entries[alias] = os.path.basename(python)
    stdlib = info["stdlib"]
    extensions = []
    for root, dirs, names in os.walk(stdlib):
        dirs[:] = sorted(d for d in dirs if not d.startswith(SKIPPED))
        _with_links(root, entries)
        for name in names:
            path = os.path.join(root, name)
            if os.path.islink(path):
                entries[path] = os.readlink(path)
            elif not name.startswith(SKIPPED):
                entries[path] = None
                if name.endswith(".so"):
                    extensions.append(path)
    for library in _libraries([python, *extensions]):
        _with_links(library, entries)
    return entries


def _manifest(entries: dict[str, str | None]) -> bytes:
    lines = []
    for path in sorted(entries):
        target = entries[path]
        if target is not None:
            lines.append(f"{path} -> {target}")
        else:
            st = os.stat(path)
            lines.append(f"{path} {stat.S_IMODE(st.st_mode):o} {st.st_size} {st.st_mtime_ns}")
    return "\n".join(lines).encode()


def image_tag(entries: dict[str, str | None]) -> str:
    digest = hashlib.sha256(_manifest(entries)).hexdigest()[:12]
    return f"{REPOSITORY}:{digest}"


def write_rootfs(entries: dict[str, str | None], target: str) -> None:
    """A tar of ``entries`` (owned by root, parents first, fixed times) at ``target``."""
    with tarfile.open(target, "w") as tar:
        for path in sorted(entries):
            info = tarfile.TarInfo(path.lstrip("/"))
            info.uid = info.gid = 0
            info.mtime = 0
            link = entries[path]
            if link is not None:
                info.type, info.linkname, info.mode = tarfile.SYMTYPE, link, 0o777
                tar.addfile(info)
                continue
            st = os.stat(path)
            info.mode = stat.S_IMODE(st.st_mode) & 0o755
            if stat.S_ISDIR(st.st_mode):
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.size = st.st_size
                with open(path, "rb") as handle:
                    tar.addfile(info, handle)


def ensure_image(client: Any = None, python: str | None = None) -> str:
    """The tag of this machine's Python as an image, loading it into the engine when missing."""
    import docker

    client = client or docker.from_env(timeout=120)
    entries = image_entries(find_python(python))
    tag = image_tag(entries)
    try:
        client.images.get(tag)
        return tag
    except docker.errors.ImageNotFound:
        pass
    repository, _, version = tag.partition(":")
    with tempfile.TemporaryDirectory(prefix="r2r-image-") as scratch:
        rootfs = os.path.join(scratch, "rootfs.tar")
        write_rootfs(entries, rootfs)
        client.api.import_image_from_file(rootfs, repository=repository, tag=version,
                                          changes=CHANGES)
    client.images.get(tag)  # raises when the import did not produce it
    return tag


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", help="interpreter to pack (default: the system's python3)")
    args = parser.parse_args()
    try:
        print(ensure_image(python=args.python))
    except Exception as exc:  # noqa: BLE001 - a CLI: one line saying why
        print(f"docker_image: cannot build the sandbox image: {type(exc).__name__}: {exc}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
