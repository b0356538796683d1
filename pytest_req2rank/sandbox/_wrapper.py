"""A sandbox that hands everything to another: the base of sandboxes that add one thing."""

from __future__ import annotations

from ..models import IsolationLevel
from ._base import ExecOutcome, ExecRequest, Sandbox


class SandboxWrapper(Sandbox):
    """Delegates every part of the interface to ``inner``; subclasses override what they add
    (a turn to take, a record of requests)."""

    def __init__(self, inner: Sandbox) -> None:
        self.inner = inner

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.inner.name

    @property
    def warm_modules(self) -> bool:  # type: ignore[override]
        return self.inner.warm_modules

    @property
    def isolation(self) -> str:
        return self.inner.isolation

    @property
    def isolation_level(self) -> IsolationLevel:
        return self.inner.isolation_level

    def run(self, request: ExecRequest) -> ExecOutcome:
        return self.inner.run(request)

    def prestart(self) -> None:
        self.inner.prestart()

    def close(self) -> None:
        self.inner.close()
