"""The sandbox interface: run a program on given files, under limits, and report what happened.

Backends (the first-version ``process`` backend here; hardened, docker and
SandboxFusion backends later) implement :class:`Sandbox`. The sandbox never
decides verdicts: it returns exit status, output and timings, and the grader on
the host compares them with expected values.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Self

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigurationError
from ..models import IsolationLevel

PYTHON = "python"
"""Placeholder as ``argv[0]``: the backend substitutes its own interpreter."""


class Limits(BaseModel):
    """Resource limits for one execution."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    memory_mb: int = 1024
    cpu_s: float | None = Field(default=None, description="Defaults to the wall timeout + 1 s")
    processes: int = 32
    file_size_mb: int = 16
    open_files: int = 256
    output_bytes: int = 1_000_000


class ExecRequest(BaseModel):
    """One execution: files laid out in a fresh work directory, then ``argv`` run there."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    files: dict[str, str]
    argv: tuple[str, ...]
    stdin: str = ""
    timeout_s: float = 5.0
    limits: Limits = Field(default_factory=Limits)
    read_back: tuple[str, ...] = Field(
        default=(), description="Files of the work directory to return after the run"
    )
    modules: dict[str, str] = Field(
        default_factory=dict,
        description="Trusted helper modules the program imports (name → source), never code "
                    "under test: a warm interpreter imports them once, other backends lay them "
                    "out as NAME.py files",
    )

    def all_files(self) -> dict[str, str]:
        """``files`` and ``modules`` as the files of the work directory."""
        return {**self.files, **{f"{name}.py": source for name, source in self.modules.items()}}


class ExecOutcome(BaseModel):
    """What one execution did. ``error`` is set only when the sandbox itself failed."""

    model_config = ConfigDict(extra="forbid")

    exit_code: int | None = None
    signal: int | None = None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    output_truncated: bool = False
    duration_s: float = 0.0
    files: dict[str, str] = Field(default_factory=dict)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and not self.timed_out and self.exit_code == 0


class SandboxUnavailable(ConfigurationError, RuntimeError):
    """The backend cannot run here (no engine, no server, missing tool); message says how to fix."""


class Sandbox(ABC):
    """A place to run untrusted code."""

    name: str = "abstract"
    warm_modules: bool = False
    """True when :attr:`ExecRequest.modules` are already imported when the program starts."""

    @property
    @abstractmethod
    def isolation(self) -> str:
        """One line for the run header saying which isolation is in force."""

    @property
    @abstractmethod
    def isolation_level(self) -> IsolationLevel:
        """How strongly executions are kept from the host (recorded with the run)."""

    @abstractmethod
    def run(self, request: ExecRequest) -> ExecOutcome:
        """Run one execution; never raises for anything the code under test does."""

    def prestart(self) -> None:
        """Get ready for the first execution in the background (a warm server, say), so that
        it does not wait for it. Optional: the first :meth:`run` does it otherwise."""

    def close(self) -> None:
        """Release long-lived resources (containers, servers)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
