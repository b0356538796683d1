"""Choosing a backend by name: ``process[:MODE]``, ``docker``, ``sandboxfusion[:URL]``."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import cast

from ._base import Sandbox, SandboxUnavailable
from ._process import MODES, Mode, ProcessSandbox


def _process(arg: str) -> Sandbox:
    if arg and arg not in MODES:
        raise SandboxUnavailable(f"unknown process mode {arg!r}; allowed: {', '.join(MODES)}")
    return ProcessSandbox(mode=cast(Mode, arg or "auto"))


def _docker(arg: str) -> Sandbox:
    from ._docker import DockerSandbox

    return DockerSandbox(arg or None)


def _sandboxfusion(arg: str) -> Sandbox:
    from ._sandboxfusion import SandboxFusionSandbox, service_url

    return SandboxFusionSandbox(service_url(f"sandboxfusion:{arg}", os.environ))


BACKENDS: dict[str, Callable[[str], Sandbox]] = {
    "process": _process,
    "docker": _docker,
    "sandboxfusion": _sandboxfusion,
}
"""Backend name → factory taking the part after ``NAME:`` (a process mode, an image, a URL)."""


def check_backend(spec: str) -> str:
    """``spec`` normalized, or ``ValueError`` naming the allowed backends (for settings)."""
    spec = spec.strip()
    name, _, arg = spec.partition(":")
    if name not in BACKENDS:
        raise ValueError(f"unknown sandbox {spec!r}; allowed: {', '.join(sorted(BACKENDS))} "
                         "(process:MODE, docker:IMAGE and sandboxfusion:URL also work)")
    if name == "process" and arg and arg not in MODES:
        raise ValueError(f"unknown process mode {arg!r}; allowed: {', '.join(MODES)}")
    return spec


def backend_from_env(environ: Mapping[str, str]) -> str | None:
    """The backend the environment asks for: ``R2R_SANDBOX``, else ``docker`` when the seed
    design's ``R2R_SANDBOX_ENABLED`` is true, else None (use the default)."""
    named = environ.get("R2R_SANDBOX", "").strip()
    if named:
        return named
    if environ.get("R2R_SANDBOX_ENABLED", "").strip().lower() in ("1", "true", "yes", "on"):
        return "docker"
    return None


def create_sandbox(spec: str) -> Sandbox:
    """The sandbox named by ``spec``; :class:`SandboxUnavailable` when unknown or unusable here."""
    name, _, arg = spec.strip().partition(":")
    factory = BACKENDS.get(name)
    if factory is None:
        raise SandboxUnavailable(
            f"unknown sandbox backend {name!r}; available: {', '.join(sorted(BACKENDS))}"
        )
    try:
        return factory(arg)
    except OSError as exc:
        raise SandboxUnavailable(f"sandbox backend {name!r} cannot run here: {exc}") from exc
