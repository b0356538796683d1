"""The ``docker`` backend: executions in locked-down containers of a local or remote engine.

Image from ``docker:IMAGE``, else ``R2R_SANDBOX_IMAGE``, else :data:`DEFAULT_IMAGE` (pulled
when missing); engine from the docker SDK's environment (``DOCKER_HOST`` and friends).
Construction checks that an engine answers and that it has (or can pull) the image —
:class:`SandboxUnavailable`, one line, otherwise — and creates no container: a process that
only asks for :attr:`isolation` (an xdist controller) costs the engine nothing.

Containers (see :mod:`._docker_container`) are created when first needed — by
:meth:`prestart`, or the first :meth:`run` — one per concurrent caller up to one per CPU;
each runs the fork-server of the ``process`` backend and serves one execution at a time.
A container that fails is removed and replaced; :meth:`close` removes them all, and so
does the interpreter's exit for a sandbox never closed.
"""

from __future__ import annotations

import atexit
import marshal
import os
import socket
import threading
import time
import weakref
from typing import Any

import docker
import requests

from ..models import IsolationLevel
from ._base import PYTHON, ExecOutcome, ExecRequest, Sandbox, SandboxUnavailable
from ._boxed import rlimits
from ._bwrap import sandbox_env
from ._docker_container import (
    LABEL,
    PIDS_LIMIT,
    PYTHON_FLAGS,
    WORK,
    Container,
    ContainerFault,
    one_line,
    server_source,
)
from ._files import PathEscape, check_path
from ._forkserver import reply_outcome

DEFAULT_IMAGE = "python:3.11-slim"
ENV = {**sandbox_env(WORK), "PATH": "/usr/local/bin:/usr/bin:/bin"}
"""The whole environment inside: official Python images keep their interpreter in /usr/local/bin."""
GRACE_S = 30.0
"""How long past an execution's timeout the server may take to clean up and answer."""
STALE_S = 600.0
"""Containers of ours that were created but never started this long ago are removed: their
creator died between the two calls."""
CLOSE_WAIT_S = 90.0
"""How long :meth:`DockerSandbox.close` waits for a container being prestarted."""
_open: weakref.WeakSet[DockerSandbox] = weakref.WeakSet()


class DockerSandbox(Sandbox):
    """Executions in containers created on demand and removed by :meth:`close`.

    ``image``: else ``R2R_SANDBOX_IMAGE``, else :data:`DEFAULT_IMAGE`. ``memory_mb``: each
    container's memory, swap included. ``containers``: at most this many at once (one per
    concurrent caller; default: one per CPU).
    """

    name = "docker"
    warm_modules = True

    def __init__(self, image: str | None = None, *, memory_mb: int = 2048,
                 containers: int | None = None) -> None:
        self.image = image or os.environ.get("R2R_SANDBOX_IMAGE", "").strip() or DEFAULT_IMAGE
        self.memory_mb = memory_mb
        self.size = containers or os.cpu_count() or 1
        self.engine = os.environ.get("DOCKER_HOST") or "the local socket"
        self._errors = (docker.errors.DockerException, requests.exceptions.RequestException)
        self._client = self._connect()
        try:
            self._check_image()
        except SandboxUnavailable:
            self._client.close()
            raise
        self._labels = {LABEL: "pytest-req2rank", "r2r.host": socket.gethostname(),
                        "r2r.pid": str(os.getpid())}
        self._source = server_source()
        self._live: list[Container] = []
        self._idle: list[Container] = []
        self._changed = threading.Condition()
        self._prestarting = False
        self._closed = False
        self._unusable: str | None = None
        """Why the image cannot serve, once a container showed it: not tried again."""
        self._swept = False
        _open.add(self)

    def _connect(self) -> Any:
        try:
            client = docker.from_env(timeout=30)
            client.ping()
        except self._errors as exc:
            raise SandboxUnavailable(
                f"no Docker engine answers at {self.engine} ({type(exc).__name__}); start one "
                "(dockerd), set DOCKER_HOST, or pick another backend (--r2r-sandbox=process)"
            ) from exc
        return client

    def _check_image(self) -> None:
        """The image is on the engine (pulled if need be) and declares no volume."""
        try:
            image = self._client.images.get(self.image)
        except docker.errors.ImageNotFound:
            image = self._pull()
        except self._errors as exc:
            raise SandboxUnavailable(f"the Docker engine at {self.engine} cannot look up image "
                                     f"{self.image}: {one_line(exc)}") from exc
        volumes = sorted((image.attrs.get("Config") or {}).get("Volumes") or {})
        if volumes:
            raise SandboxUnavailable(
                f"Docker image {self.image} declares volumes ({', '.join(volumes)}): they would "
                "be writable and outlive each execution; use an image without VOLUME "
                "(docs/sandbox.md, The docker backend)")

    def _pull(self) -> Any:
        try:
            return self._client.images.pull(self.image)
        except self._errors as exc:
            raise SandboxUnavailable(
                f"Docker image {self.image} is not on the engine at {self.engine} and cannot be "
                f"pulled ({one_line(exc)}); pull, load or build it there, or name another with "
                "R2R_SANDBOX_IMAGE or --r2r-sandbox=docker:IMAGE (docs/sandbox.md, The docker backend)") from exc

    @property
    def isolation(self) -> str:
        return (f"docker: image {self.image} on {self.engine}; a fork-server as pid 1 of a "
                f"container per concurrent caller: no network, read-only root, private tmpfs "
                f"work dir, /tmp and /dev/shm, {self.memory_mb} MiB memory, {PIDS_LIMIT} pids, "
                f"1 CPU, no capabilities, no-new-privileges, an unprivileged uid of its own; "
                f"rlimits, empty env")

    @property
    def isolation_level(self) -> IsolationLevel:
        return "full"

    def run(self, request: ExecRequest) -> ExecOutcome:
        try:
            header, files, script = _request(request)
        except PathEscape as exc:
            return ExecOutcome(error=f"rejected: {exc}")
        if script is None:  # a fresh interpreter: the helper modules as files
            files.update({f"{name}.py": source for name, source in request.modules.items()})
        for attempt in range(2):
            try:
                container = self._acquire()
            except ContainerFault as exc:
                return ExecOutcome(error=f"docker: {exc}")
            payload = marshal.dumps({
                "files": files, "stdin": request.stdin.encode(), "script": script,
                "argv": _argv(request.argv, container.interpreter, script), "env": ENV})
            try:
                reply, parts = container.execute(header, payload, request.modules,
                                                 request.timeout_s + GRACE_S)
            except ContainerFault as exc:
                self._discard(container)
                if exc.delivered or attempt:
                    return ExecOutcome(error=f"docker: {exc}")
                continue  # it ended while idle and never saw the request: a fresh one runs it
            except BaseException:
                self._discard(container)  # Ctrl-C mid-execution: its state is unknown
                raise
            self._release(container)
            return reply_outcome(reply, parts, "docker: the container's server")
        raise AssertionError("unreachable")

    def prestart(self) -> None:
        """Start one container on a background thread (no-op when one exists): the first
        execution waits for it rather than starting another."""
        with self._changed:
            if self._closed or self._live or self._prestarting:
                return
            self._prestarting = True

        def start() -> None:
            container = None
            try:
                container = self._new_container()
            except ContainerFault:
                pass  # the first execution tries again and reports why it cannot
            finally:
                with self._changed:
                    self._prestarting = False
                    if container is not None:
                        self._idle.append(container)
                    self._changed.notify_all()

        threading.Thread(target=start, name="r2r-docker-prestart", daemon=True).start()

    def _acquire(self) -> Container:
        with self._changed:
            while True:
                if self._closed:
                    raise ContainerFault("the sandbox is closed", delivered=False)
                if self._unusable is not None:
                    raise ContainerFault(self._unusable, delivered=False)
                if self._idle:
                    return self._idle.pop()
                if not self._prestarting and len(self._live) < self.size:
                    break
                self._changed.wait()
        return self._new_container()

    def _new_container(self) -> Container:
        """A started container, counted in ``_live``; removed again on any failure."""
        self._sweep_stale()
        container = Container(self._client, self.image, memory_mb=self.memory_mb, env=ENV,
                              labels=self._labels, source=self._source)
        with self._changed:
            closed = self._closed
            if not closed:
                self._live.append(container)
        try:
            if closed:
                raise ContainerFault("the sandbox is closed", delivered=False)
            container.start()
        except BaseException as exc:
            self._discard(container)
            if isinstance(exc, ContainerFault) and exc.permanent:
                with self._changed:
                    self._unusable = f"{exc} (not retried: every container would fail alike)"
                    self._changed.notify_all()
            raise
        return container

    def _sweep_stale(self) -> None:
        """Once: remove containers of ours that were never started (their creator died
        between create and start) or that stopped without being removed."""
        if self._swept:
            return
        self._swept = True
        try:
            found = self._client.api.containers(
                all=True, filters={"label": LABEL, "status": ["created", "exited", "dead"]})
            for entry in found:
                if entry["State"] != "created" or time.time() - entry["Created"] > STALE_S:
                    self._client.api.remove_container(entry["Id"], force=True)
        except self._errors:
            pass  # a janitor's failure must not stop the run

    def _release(self, container: Container) -> None:
        with self._changed:
            if self._closed:
                container.remove()
                return
            self._idle.append(container)
            self._changed.notify()

    def _discard(self, container: Container) -> None:
        container.remove()
        with self._changed:
            if container in self._live:
                self._live.remove(container)
            if container in self._idle:
                self._idle.remove(container)
            self._changed.notify_all()

    def close(self) -> None:
        """Remove every container of this sandbox (those in use too), after a prestart that
        is under way has seen the sandbox closed and removed its own."""
        with self._changed:
            self._closed = True
            containers, self._live, self._idle = self._live, [], []
            self._changed.notify_all()
            self._changed.wait_for(lambda: not self._prestarting, timeout=CLOSE_WAIT_S)
        for container in containers:
            container.remove()
        _open.discard(self)

def _request(request: ExecRequest) -> tuple[dict[str, Any], dict[str, str], str | None]:
    """The server's header, the files, and the script a warm interpreter runs (None: a
    program to exec); :class:`PathEscape` for a path or module name that escapes."""
    for name in request.modules:
        if not name.isidentifier():
            raise PathEscape(f"module name {name!r} is not an identifier")
    argv = request.argv
    script = None
    if argv[:1] == (PYTHON,) and len(argv) > 1 and not argv[1].startswith("-"):
        script = check_path(argv[1])
    header = {"timeout_s": request.timeout_s,
              "limits": rlimits(request.limits, request.timeout_s),
              "read_back": [[name, check_path(name)] for name in request.read_back],
              "output_bytes": request.limits.output_bytes}
    return header, {check_path(name): text for name, text in request.files.items()}, script


def _argv(argv: tuple[str, ...], interpreter: str, script: str | None) -> list[str]:
    """The child's argv: :data:`PYTHON` is the container's interpreter."""
    if argv[:1] != (PYTHON,):
        return list(argv)
    flags = () if script is not None else PYTHON_FLAGS
    return [interpreter, *flags, *argv[1:]]


@atexit.register
def _close_all() -> None:
    for sandbox in list(_open):
        sandbox.close()
