"""Choosing a backend by name."""

from __future__ import annotations

from collections.abc import Callable

from ._base import Sandbox, SandboxUnavailable
from ._process import ProcessSandbox

BACKENDS: dict[str, Callable[[], Sandbox]] = {"process": ProcessSandbox}


def create_sandbox(name: str) -> Sandbox:
    """The sandbox backend called ``name``; :class:`SandboxUnavailable` when unknown or unusable."""
    factory = BACKENDS.get(name)
    if factory is None:
        raise SandboxUnavailable(
            f"unknown sandbox backend {name!r}; available: {', '.join(sorted(BACKENDS))}"
        )
    try:
        return factory()
    except OSError as exc:
        raise SandboxUnavailable(f"sandbox backend {name!r} cannot run here: {exc}") from exc
