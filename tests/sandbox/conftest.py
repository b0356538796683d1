"""A process sandbox shared by the sandbox tests, and a way to find processes by a marker."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_req2rank.sandbox import ProcessSandbox


@pytest.fixture(scope="session")
def sandbox() -> Iterator[ProcessSandbox]:
    with ProcessSandbox() as box:
        yield box  # type: ignore[misc]


def pids_with(marker: str) -> list[int]:
    """Pids of live processes whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = next(line for line in (entry / "status").read_text().splitlines()
                         if line.startswith("State:"))
        except (OSError, StopIteration):
            continue
        if marker.encode() in cmdline and "zombie" not in state:
            found.append(int(entry.name))
    return found
