"""One sandbox container of the docker backend: its lock-down, its lifecycle, its stream.

The container runs :mod:`._docker_runner` as pid 1 (its source passed with ``-c``: nothing
is written into the image or the read-only root). Requests and replies travel over the
container's attached stdin and stdout — one hijacked connection to the engine, so a
remote engine (``DOCKER_HOST``) works exactly like a local one. The container is created
with ``StdinOnce`` and ``AutoRemove``: when that connection closes for any reason (we
close it, our process exits or is killed, the network drops) the server reads EOF, exits,
and the engine removes the container. A container that failed to start is removed here.
"""

from __future__ import annotations

import json
import secrets
import ssl
import struct
import time
from collections.abc import Mapping
from importlib import resources
from typing import Any

WORK = "/work"
INTERPRETER = "python3"
"""What the image must have on ``PATH`` (image contract, README: docker)."""
UID_MIN, UID_SPAN = 20_000, 40_000
"""Each container runs as a uid of its own drawn from here: never root, never 65534 (shared
with the host's own unprivileged daemons), so RLIMIT_NPROC counts only this container's
processes, and below 65536 so engines that remap user namespaces can map it."""
PIDS_LIMIT = 128
TMPFS = {
    WORK: "rw,exec,nosuid,nodev,size=256m,mode=0700",
    "/tmp": "rw,noexec,nosuid,nodev,size=64m,mode=1777",
}
SHM_SIZE = "16m"
CPUS = 1.0
HEADER_DIGITS = 16
HELLO_TIMEOUT_S = 60.0
STDERR_KEPT = 4096
CONFLICT = 409
REMOVAL_S = 30
CONTRACT = ("; the image must run `python3` (Python 3.9+, its standard library) from PATH, on "
            "Linux 5.3+ (README: docker)")
LABEL = "r2r.sandbox"
"""Every container of ours carries this label (value: the plugin's name)."""


class ContainerFault(Exception):
    """The container or the connection to it failed; ``delivered`` says whether the
    request may have reached the server (then it may have run)."""

    def __init__(self, message: str, *, delivered: bool = True) -> None:
        super().__init__(message)
        self.delivered = delivered


def runner_source() -> str:
    return resources.files(__package__).joinpath("_docker_runner.py").read_text("utf-8")


def one_line(exc: BaseException) -> str:
    """The engine's own explanation when it gave one (not the HTTP wrapping), on one line."""
    text = " ".join(str(getattr(exc, "explanation", None) or exc).split()) or type(exc).__name__
    return text[:300]


class Container:
    """A started, locked-down container whose server answered hello."""

    def __init__(self, client: Any, image: str, *, memory_mb: int, env: Mapping[str, str],
                 labels: Mapping[str, str], source: str) -> None:
        import docker
        import requests

        self._errors = (docker.errors.DockerException, requests.exceptions.RequestException,
                        OSError)
        self._api = client.api
        self.uid = UID_MIN + secrets.randbelow(UID_SPAN)
        self.id: str | None = None
        self._stream: Any = None
        self._raw = bytearray()
        self._out = bytearray()
        self.stderr = bytearray()
        self.image = image
        self._create(image, memory_mb, env, labels, source)

    def _create(self, image: str, memory_mb: int, env: Mapping[str, str],
                labels: Mapping[str, str], source: str) -> None:
        from docker.types import LogConfig

        api = self._api
        uid = self.uid
        host_config = api.create_host_config(
            auto_remove=True, network_mode="none", read_only=True,
            tmpfs={path: f"{options},uid={uid},gid={uid}" if path == WORK else options
                   for path, options in TMPFS.items()},
            shm_size=SHM_SIZE, mem_limit=f"{memory_mb}m", memswap_limit=f"{memory_mb}m",
            pids_limit=PIDS_LIMIT, nano_cpus=int(CPUS * 1e9), cap_drop=["ALL"],
            security_opt=["no-new-privileges"], ipc_mode="private",
            log_config=LogConfig(type="none"),
        )
        try:
            created = api.create_container(
                image, [INTERPRETER, "-I", "-S", "-B", "-c", source], user=f"{uid}:{uid}",
                stdin_open=True, environment=dict(env), labels=dict(labels), working_dir=WORK,
                host_config=host_config)
        except self._errors as exc:
            raise ContainerFault(f"cannot create a container of {image}: {one_line(exc)}",
                                 delivered=False) from exc
        self.id = created["Id"]

    def start(self) -> None:
        """Attach, start, and check the server's hello. Raises :class:`ContainerFault` (the
        caller removes the container)."""
        api = self._api
        try:
            self._stream = api.attach_socket(
                self.id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
            api.start(self.id)
        except self._errors as exc:
            raise ContainerFault(f"cannot start a container of {self.image}: {one_line(exc)}"
                                 f"{CONTRACT}", delivered=False) from exc
        try:
            hello = self.call({"op": "hello"}, HELLO_TIMEOUT_S)
        except ContainerFault as exc:
            raise ContainerFault(f"{exc}{CONTRACT}", delivered=False) from exc
        if not hello.get("supported"):
            version = ".".join(map(str, hello.get("python", [])))
            raise ContainerFault(f"{INTERPRETER} in {self.image} is Python {version} "
                                 f"({hello.get('executable')}){CONTRACT}", delivered=False)

    @property
    def _socket(self) -> Any:
        return getattr(self._stream, "_sock", self._stream)

    def call(self, message: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """Send ``message``; the server's reply within ``timeout_s``."""
        data = json.dumps(message).encode()
        self._read_frames(time.monotonic(), idle=True)  # it may have died while idle
        try:
            sock = self._socket
            sock.sendall(b"%0*d" % (HEADER_DIGITS, len(data)) + data)
        except (OSError, AttributeError) as exc:
            raise ContainerFault(f"the container's stream failed: {one_line(exc)}",
                                 delivered=False) from exc
        reply: dict[str, Any] = json.loads(self._receive(time.monotonic() + timeout_s))
        return reply

    def _receive(self, deadline: float) -> bytes:
        while True:
            if len(self._out) >= HEADER_DIGITS:
                header = bytes(self._out[:HEADER_DIGITS])
                if not header.isdigit():
                    raise ContainerFault(f"the container's server sent {header!r}{self._said()}")
                size = int(header)
                if len(self._out) >= HEADER_DIGITS + size:
                    message = bytes(self._out[HEADER_DIGITS:HEADER_DIGITS + size])
                    del self._out[:HEADER_DIGITS + size]
                    return message
            self._read_frames(deadline)

    def _read_frames(self, deadline: float, *, idle: bool = False) -> None:
        """Read from the engine and split its frames: stdout is ours, stderr kept for errors.
        ``idle``: only what is there already (nothing is fine), and a closed stream means
        the server ended before it saw a request."""
        sock = self._socket
        left = 0.0 if idle else deadline - time.monotonic()
        try:
            if left <= 0 and not idle:
                raise TimeoutError
            sock.settimeout(left)  # 0: non-blocking
            chunk = sock.recv(1 << 20)
        except (TimeoutError, BlockingIOError, ssl.SSLWantReadError) as exc:
            if idle:
                return
            raise ContainerFault(f"the container did not answer in time{self._said()}") from exc
        except (OSError, ValueError) as exc:
            raise ContainerFault(f"the container's stream failed: {one_line(exc)}",
                                 delivered=not idle) from exc
        if not chunk:
            raise ContainerFault(f"the container's server ended{self._said()}",
                                 delivered=not idle)
        raw = self._raw
        raw += chunk
        while len(raw) >= 8:
            stream, size = struct.unpack(">BxxxL", raw[:8])
            if len(raw) < 8 + size:
                break
            payload = raw[8:8 + size]
            del raw[:8 + size]
            if stream == 1:
                self._out += payload
            else:
                self.stderr = (self.stderr + payload)[-STDERR_KEPT:]

    def _said(self) -> str:
        text = self.stderr.decode("utf-8", errors="replace").strip().splitlines()
        return f": {text[-1][:300]}" if text else ""

    def remove(self) -> None:
        """Remove the container (already gone is fine), then close the stream; never raises."""
        if self.id is not None:
            try:
                self._api.remove_container(self.id, force=True)
            except self._errors as exc:
                if getattr(exc, "status_code", None) == CONFLICT:  # the engine removes it already
                    self._wait_removed()
        if self._stream is not None:
            try:
                self._socket.close()
                self._stream.close()
            except OSError:
                pass

    def _wait_removed(self) -> None:
        try:
            self._api.wait(self.id, timeout=REMOVAL_S, condition="removed")
        except self._errors:
            pass  # removed before we asked, or the engine is gone: nothing more to do
