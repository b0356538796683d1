"""Choosing a backend: ``process[:MODE]``, ``docker[:IMAGE]``, ``sandboxfusion[:URL]``."""

from __future__ import annotations

from collections.abc import Callable

from ..models import SandboxSpec
from ._base import Sandbox, SandboxUnavailable
from ._process import ProcessSandbox


def _process(spec: SandboxSpec) -> Sandbox:
    return ProcessSandbox(mode=spec.process_mode)


def _docker(spec: SandboxSpec) -> Sandbox:
    # The docker SDK and requests load only for a docker run.
    from ._docker import DockerSandbox

    return DockerSandbox(spec.option or None)


def _sandboxfusion(spec: SandboxSpec) -> Sandbox:
    # httpx loads only for a sandboxfusion run.
    from ._sandboxfusion import SandboxFusionSandbox

    return SandboxFusionSandbox(spec.option or None)


BACKENDS: dict[str, Callable[[SandboxSpec], Sandbox]] = {
    "process": _process,
    "docker": _docker,
    "sandboxfusion": _sandboxfusion,
}
"""Backend name → factory."""


def create_sandbox(spec: SandboxSpec | str) -> Sandbox:
    """The sandbox ``spec`` names; :class:`SandboxUnavailable` when unknown or unusable here."""
    if isinstance(spec, str):
        try:
            spec = SandboxSpec.parse(spec)
        except ValueError as exc:
            raise SandboxUnavailable(str(exc)) from None
    try:
        return BACKENDS[spec.backend](spec)
    except OSError as exc:
        raise SandboxUnavailable(f"sandbox backend {spec.backend!r} cannot run here: {exc}") from exc
