"""One sandbox container of the docker backend: its lock-down, its lifecycle, its stream.

The container runs the ``process`` backend's fork-server (``sandboxed/forkserver.py``,
unchanged) as its pid 1: a warm interpreter that forks one child per execution, lays its files out in
``/sandbox``, and after it ends kills every other process of the container, empties
``/sandbox``, ``/tmp`` and ``/dev/shm`` and removes System V IPC objects — the same code,
so the same guarantees, as under bubblewrap. Its source travels on the command line (a
short bootstrap with ``-c`` first reports the interpreter, then compiles the server): nothing
is written into the image or the read-only root.

Requests and replies travel over the container's attached stdin and stdout — one hijacked
connection to the engine, so a remote engine (``DOCKER_HOST``) works like a local one. The
container is created with ``StdinOnce`` and ``AutoRemove``: when that connection closes for
any reason (we close it, our process exits or is killed, the network drops) the server
reads EOF, exits, and the engine removes the container. One that fails to start is removed
here.
"""

from __future__ import annotations

import json
import secrets
import ssl
import struct
import time
from collections.abc import Mapping
from typing import Any

import docker
import requests
from docker.types import LogConfig

from .. import sandboxed
from ..errors import Req2RankError

WORK = "/sandbox"
"""The fork-server's work directory (``forkserver.WORK``)."""
INTERPRETER = "python3"
"""What the image must have on ``PATH`` (image contract, docs/sandbox.md)."""
MIN_PYTHON = (3, 10)
PYTHON_FLAGS = ("-s", "-B")
"""Not ``-I``/``-E``: the server must honour ``PYTHONHASHSEED=0``; not ``-S``: the image's
site-packages are what an image is for."""
BOOT = f"""import json, os, sys
os.write(1, json.dumps({{"interpreter": sys.executable,
                        "python": list(sys.version_info[:3])}}).encode() + b"\\n")
if sys.version_info < {MIN_PYTHON} or not hasattr(os, "pidfd_open"):
    sys.exit(3)
exec(compile(sys.argv.pop(1), "r2r-server.py", "exec", dont_inherit=True),
     {{"__name__": "__main__", "__builtins__": __builtins__}})
"""
"""Reports the interpreter and its version, then runs the server (the next argument)."""
CONTRACT = ("; the image must run `python3` (Python 3.10+ with its standard library) from PATH, "
            "on Linux 5.3+ (docs/sandbox.md, The docker backend)")
UID_MIN, UID_SPAN = 20_000, 40_000
"""Each container runs as a uid of its own drawn from here: never root, never 65534 (shared
with the host's own unprivileged daemons), so RLIMIT_NPROC counts only this container's
processes, and below 65536 so engines that remap user namespaces can map it."""
PIDS_LIMIT = 128
TMPFS = {WORK: "rw,exec,nosuid,nodev,size=256m,mode=0700",
         "/tmp": "rw,exec,nosuid,nodev,size=64m,mode=0700",
         "/dev/shm": "rw,noexec,nosuid,nodev,size=16m,mode=0700"}
"""The server's scratch directories, owned by the container's uid (it empties them)."""
CPUS = 1.0
HEADER_DIGITS = 16
START_TIMEOUT_S = 60.0
STDERR_KEPT = 4096
CONFLICT = 409
REMOVAL_S = 30
LABEL = "r2r.sandbox"
"""Every container of ours carries this label (value: the plugin's name)."""


class ContainerFault(Req2RankError):
    """The container or the connection to it failed; ``delivered`` says whether the
    request may have reached the server (then it may have run); ``permanent``, that the
    image itself cannot serve (another container would fail alike)."""

    def __init__(self, message: str, *, delivered: bool = True, permanent: bool = False) -> None:
        super().__init__(message)
        self.delivered, self.permanent = delivered, permanent


def server_source() -> str:
    return sandboxed.source("forkserver")


def one_line(exc: BaseException) -> str:
    """The engine's own explanation when it gave one (not the HTTP wrapping), on one line."""
    text = " ".join(str(getattr(exc, "explanation", None) or exc).split()) or type(exc).__name__
    return text[:300]


class Container:
    """A locked-down container of ``image``; :meth:`start` makes its server ready."""

    def __init__(self, client: Any, image: str, *, memory_mb: int, env: Mapping[str, str],
                 labels: Mapping[str, str], source: str) -> None:
        self._errors = (docker.errors.DockerException, requests.exceptions.RequestException,
                        OSError)
        self._api = client.api
        self.image = image
        self.uid = UID_MIN + secrets.randbelow(UID_SPAN)
        self.interpreter = ""
        self.id: str | None = None
        self._stream: Any = None
        self._socket: Any = None
        self._raw = bytearray()
        self._out = bytearray()
        self._stderr = bytearray()
        self._warm: dict[str, str] = {}
        """The helper modules the server has imported, with their sources."""
        self._create(memory_mb, env, labels, source)

    def _create(self, memory_mb: int, env: Mapping[str, str], labels: Mapping[str, str],
                source: str) -> None:
        api, uid = self._api, self.uid
        host_config = api.create_host_config(
            auto_remove=True, network_mode="none", read_only=True,
            tmpfs={path: f"{options},uid={uid},gid={uid}" for path, options in TMPFS.items()},
            mem_limit=f"{memory_mb}m", memswap_limit=f"{memory_mb}m", pids_limit=PIDS_LIMIT,
            nano_cpus=int(CPUS * 1e9), cap_drop=["ALL"], security_opt=["no-new-privileges"],
            ipc_mode="private", log_config=LogConfig(type="none"),
        )
        try:
            created = api.create_container(  # our entrypoint, whatever the image's
                self.image, [*PYTHON_FLAGS, "-c", BOOT, source], entrypoint=[INTERPRETER],
                user=f"{uid}:{uid}", stdin_open=True, environment=dict(env),
                labels=dict(labels), working_dir=WORK, host_config=host_config)
        except self._errors as exc:
            raise ContainerFault(f"cannot create a container of {self.image}: {one_line(exc)}",
                                 delivered=False) from exc
        self.id = created["Id"]

    def start(self) -> None:
        """Attach, start, wait for the server. Raises :class:`ContainerFault` (the caller
        removes the container)."""
        try:
            self._stream = self._api.attach_socket(
                self.id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
            # the SDK's wrapper (socket.SocketIO over unix or TCP): the socket itself
            self._socket = getattr(self._stream, "_sock", self._stream)
            self._api.start(self.id)
        except self._errors as exc:
            # the runtime could not exec the image's python3 (missing, wrong architecture)
            runtime = "OCI runtime" in str(getattr(exc, "explanation", None) or "")
            raise ContainerFault(f"cannot start a container of {self.image}: {one_line(exc)}"
                                 f"{CONTRACT}", delivered=False, permanent=runtime) from exc
        deadline = time.monotonic() + START_TIMEOUT_S
        booted = False
        try:
            boot = self._read_line(deadline)
            booted = True
            self.interpreter = str(boot.get("interpreter", ""))
            version = tuple(boot.get("python", ()))
            if version[:2] < MIN_PYTHON or not self.interpreter.startswith("/"):
                raise ContainerFault(f"{INTERPRETER} in {self.image} is Python "
                                     f"{'.'.join(map(str, version))} ({self.interpreter})")
            if self._read_line(deadline) != {"ready": True}:
                raise ContainerFault(f"the container's server did not start{self._said()}")
        except ContainerFault as exc:
            # once its python3 ran, a failure to get ready (not a slow start) is the image's
            slow = isinstance(exc.__cause__, TimeoutError)
            raise ContainerFault(f"{exc}{CONTRACT}", delivered=False,
                                 permanent=booted and not slow) from exc

    def execute(self, header: dict[str, Any], payload: bytes, modules: Mapping[str, str],
                timeout_s: float) -> tuple[dict[str, Any], list[bytes]]:
        """Send one request; the server's reply and the raw parts it announced (stdout,
        stderr, the files read back). :class:`ContainerFault` when the container failed."""
        sent = {name: None if self._warm.get(name) == source else source
                for name, source in modules.items()}
        data = json.dumps({**header, "payload": len(payload), "modules": sent}).encode()
        self._read_frames(time.monotonic(), idle=True)  # it may have ended while idle
        try:
            self._socket.sendall(b"%0*d" % (HEADER_DIGITS, len(data)) + data + payload)
        except (OSError, AttributeError) as exc:
            raise ContainerFault(f"the container's stream failed: {one_line(exc)}",
                                 delivered=False) from exc
        deadline = time.monotonic() + timeout_s
        reply = self._read_line(deadline)
        if "error" in reply:
            raise ContainerFault(f"the container's server could not run it: {reply['error']}")
        try:
            sizes = [*reply["sizes"], *(size for _, size in reply["files"])]
        except (KeyError, TypeError, ValueError) as exc:
            raise ContainerFault(f"the container's server sent a malformed reply: {exc}") from exc
        if not all(type(size) is int and size >= 0 for size in sizes):
            raise ContainerFault(f"the container's server sent malformed sizes: {sizes}")
        parts = self._read_parts(sizes, deadline)
        self._warm.update(modules)
        return reply, parts

    def _read_line(self, deadline: float) -> dict[str, Any]:
        while (end := self._out.find(b"\n")) < 0:
            self._read_frames(deadline)
        line = bytes(self._out[:end])
        del self._out[:end + 1]
        try:
            found = json.loads(line)
        except ValueError:
            found = None
        if not isinstance(found, dict):
            raise ContainerFault(f"the container's server sent {line[:100]!r}{self._said()}")
        return found

    def _read_parts(self, sizes: list[int], deadline: float) -> list[bytes]:
        total = sum(sizes)
        while len(self._out) < total:
            self._read_frames(deadline)
        parts, offset = [], 0
        for size in sizes:
            parts.append(bytes(self._out[offset:offset + size]))
            offset += size
        del self._out[:total]
        return parts

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
        except (BlockingIOError, ssl.SSLWantReadError, TimeoutError) as exc:
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
            if stream == 1:
                self._out += raw[8:8 + size]
            else:
                self._stderr = (self._stderr + raw[8:8 + size])[-STDERR_KEPT:]
            del raw[:8 + size]

    def _said(self) -> str:
        """The last line the server wrote to stderr (its traceback's verdict), if any."""
        text = self._stderr.decode("utf-8", errors="replace").strip().splitlines()
        return f": {text[-1][:300]}" if text else ""

    def remove(self) -> None:
        """Remove the container (already gone is fine), then close the stream; never raises."""
        if self.id is not None:
            try:
                self._api.remove_container(self.id, force=True, v=True)
            except self._errors as exc:
                if getattr(exc, "status_code", None) == CONFLICT:  # the engine removes it already
                    self._wait_removed()
        for stream in (self._socket, self._stream):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    def _wait_removed(self) -> None:
        try:
            self._api.wait(self.id, timeout=REMOVAL_S, condition="removed")
        except self._errors:
            pass  # removed before we asked, or the engine is gone: nothing more to do

