"""Pytest subprocesses without what other installed plugins add: to their start-up, to what
they print."""

from __future__ import annotations

import re

UNUSED_DEV_PLUGINS = ("hypothesispytest", "schemathesis", "benchmark")
"""The ``[dev]`` extra's pytest plugins that no pytester run uses. Installed, they would load
in every pytest process a pytester run starts (its xdist workers, ``runpytest_subprocess``):
hypothesis and schemathesis cost each such process about as much CPU as pytest itself."""

WARNING_LINE = re.compile(r"^\S+:\d+: \w*Warning: ")
"""A Python warning printed at start-up by another installed plugin (pytest-benchmark's
under xdist, say); the indented line after it shows the source."""


def shown_lines(lines: list[str]) -> list[str]:
    """The non-blank lines of ``lines``, without Python warnings and their source lines."""
    kept = [line for line in lines if line.strip()]
    noise = {i for i, line in enumerate(kept) if WARNING_LINE.match(line)}
    return [line for i, line in enumerate(kept)
            if i not in noise and not (i - 1 in noise and line.startswith(" "))]
