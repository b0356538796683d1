"""Where a relative path in a setting starts: pytest's own rule, decided once.

A path given on the command line or in the environment starts from the directory pytest
was invoked in (as ``--junitxml`` and ``--basetemp`` do), a path in an ini file from that
file's directory (as pytest's ``paths`` ini values do), and the defaults (``.req2rank``)
live under the rootdir (as ``.pytest_cache`` does).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..options import SWITCH_OFF, SWITCH_ON, OptionSpec


@dataclass(frozen=True)
class PathBases:
    """The directories relative paths start from, by where the value was given."""

    given: Path
    """The command line and the environment: the invocation directory."""
    ini: Path
    """An ini file (or ``-o``): the ini file's directory."""
    default: Path
    """Defaults: the rootdir."""

    @classmethod
    def here(cls) -> PathBases:
        """Everything from the current directory (for use without pytest)."""
        cwd = Path.cwd()
        return cls(given=cwd, ini=cwd, default=cwd)


def absolute(path: str | Path, base: Path) -> Path:
    """``path`` with ``~`` expanded, joined to ``base`` when relative, and normalized
    (``a/../b`` is ``b``) without resolving symbolic links."""
    expanded = Path(path).expanduser()
    return Path(os.path.normpath(base / expanded))


def with_absolute_path(spec: OptionSpec, value: str, base: Path) -> str:
    """``value`` with the path it carries (per ``spec.path``) made absolute from ``base``;
    values without a path (``dynamic``, ``gpt-4o``, ``jsonl:`` with nothing after it)
    and a switch's on/off words are returned unchanged, for the validators to judge."""
    if spec.path is None or not value.startswith(spec.path):
        return value
    if spec.switch and value.strip().lower() in SWITCH_ON + SWITCH_OFF:
        return value
    rest = value[len(spec.path):]
    if not rest.strip():
        return value
    return spec.path + str(absolute(rest, base))
