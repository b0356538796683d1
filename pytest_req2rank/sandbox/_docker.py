"""The ``docker`` backend: a long-lived, locked-down container per sandbox instance.

Local or remote engine (``DOCKER_HOST``); image from ``R2R_SANDBOX_IMAGE``
(default :data:`DEFAULT_IMAGE`, pulled when missing). The container: no network,
read-only root, tmpfs ``/tmp`` and ``/work``, memory and pids limits, every
capability dropped, no-new-privileges, user 65534, the sandbox environment. Each
execution: one ``put_archive`` (files, stdin, the runner) and one ``exec`` of
:mod:`._docker_runner`, which answers with one JSON line. When no engine answers,
:class:`SandboxUnavailable` says so in one line, in milliseconds.
"""

from __future__ import annotations

import io
import json
import os
import secrets
import tarfile
import threading
from importlib import resources
from typing import Any

from ..models import IsolationLevel
from ._base import PYTHON, ExecOutcome, ExecRequest, Sandbox, SandboxUnavailable
from ._boxed import rlimits
from ._bwrap import SANDBOX_ENV
from ._files import check_path

DEFAULT_IMAGE = "python:3.11-slim"
USER = "65534:65534"
WORK = "/work"
KEEPER = ["sleep", "infinity"]
ENV = {**SANDBOX_ENV, "PATH": "/usr/local/bin:/usr/bin:/bin"}
"""Official python images keep their interpreter in /usr/local/bin."""
PIDS_LIMIT = 128


class DockerSandbox(Sandbox):
    """Executions in one container, created at start and removed by :meth:`close`."""

    name = "docker"

    def __init__(self, image: str | None = None, *, memory_mb: int = 2048) -> None:
        import docker
        import requests

        self.image = image or os.environ.get("R2R_SANDBOX_IMAGE") or DEFAULT_IMAGE
        where = os.environ.get("DOCKER_HOST", "the local socket")
        try:
            self._client = docker.from_env(timeout=10)
            self._client.ping()
        except (docker.errors.DockerException, requests.exceptions.RequestException) as exc:
            raise SandboxUnavailable(
                f"no Docker engine answers at {where} ({type(exc).__name__}); start one, set "
                "DOCKER_HOST, or pick another backend (--r2r-sandbox=process)") from exc
        try:
            try:
                self._client.images.get(self.image)
            except docker.errors.ImageNotFound:
                self._client.images.pull(self.image)
            self._container = self._client.containers.run(
                self.image, KEEPER, detach=True, network_mode="none", read_only=True,
                tmpfs={"/tmp": "rw,size=64m,mode=1777",
                       WORK: "rw,exec,size=256m,uid=65534,gid=65534,mode=0700"},
                mem_limit=f"{memory_mb}m", memswap_limit=f"{memory_mb}m",
                pids_limit=PIDS_LIMIT, cap_drop=["ALL"], security_opt=["no-new-privileges"],
                user=USER, environment=ENV, labels={"r2r": "sandbox"},
                working_dir=WORK,
            )
        except (docker.errors.DockerException, requests.exceptions.RequestException) as exc:
            raise SandboxUnavailable(
                f"the Docker engine at {where} cannot run {self.image}: {exc}") from exc
        self._errors = (docker.errors.DockerException, requests.exceptions.RequestException)
        self._runner = resources.files(__package__).joinpath("_docker_runner.py").read_bytes()
        self._lock = threading.Lock()

    @property
    def isolation(self) -> str:
        return (f"docker: container {self._container.short_id} of {self.image}; no network, "
                f"read-only root, tmpfs work dir, memory/pids limits, no capabilities, "
                f"no-new-privileges, user 65534; rlimits, empty env")

    @property
    def isolation_level(self) -> IsolationLevel:
        return "full"

    def run(self, request: ExecRequest) -> ExecOutcome:
        try:
            archive = self._archive(request, name := secrets.token_hex(8))
        except ValueError as exc:
            return ExecOutcome(error=f"rejected: {exc}")
        run = f"{WORK}/{name}"
        argv = list(request.argv)
        if argv[:1] == [PYTHON]:
            argv = ["python3", "-S", "-B", *argv[1:]]
        spec = {"dir": run, "argv": argv, "timeout_s": request.timeout_s,
                "limits": rlimits(request.limits, request.timeout_s),
                "output_bytes": request.limits.output_bytes, "read_back": list(request.read_back),
                "env": ENV}
        with self._lock:
            try:
                if not self._container.put_archive(WORK, archive):
                    return ExecOutcome(error="docker: the engine refused the files")
                code, output = self._container.exec_run(
                    ["python3", "-S", "-B", f"{run}/.r2r_runner.py", json.dumps(spec)],
                    user=USER, workdir=WORK, environment=ENV)
            except self._errors as exc:
                return ExecOutcome(error=f"docker: {type(exc).__name__}: {exc}")
        return _outcome(code, output)

    def _archive(self, request: ExecRequest, name: str) -> bytes:
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as tar:
            entries = {f"{name}/work/{check_path(path)}": text.encode()
                       for path, text in request.all_files().items()}
            entries.update({f"{name}/stdin": request.stdin.encode(),
                            f"{name}/.r2r_runner.py": self._runner})
            for path in request.read_back:
                check_path(path)
            for path in sorted({f"{name}/{d}" for d in ("", "work")} | {
                    os.path.dirname(p) for p in entries}):
                info = tarfile.TarInfo(path.rstrip("/"))
                info.type, info.uid, info.gid, info.mode = tarfile.DIRTYPE, 65534, 65534, 0o700
                tar.addfile(info)
            for path, data in entries.items():
                info = tarfile.TarInfo(path)
                info.size, info.uid, info.gid, info.mode = len(data), 65534, 65534, 0o600
                tar.addfile(info, io.BytesIO(data))
        return buffer.getvalue()

    def close(self) -> None:
        try:
            self._container.remove(force=True)
        except self._errors:
            pass
        self._client.close()


def _outcome(code: int | None, output: bytes) -> ExecOutcome:
    """Our outcome from the runner's answer; anything else is the sandbox's failure."""
    lines = output.decode("utf-8", errors="replace").strip().splitlines()
    try:
        data: dict[str, Any] = json.loads(lines[-1]) if code == 0 and lines else {}
    except ValueError:
        data = {}
    if not data:
        tail = lines[-1][:200] if lines else "no output"
        return ExecOutcome(error=f"docker: the runner failed (exit {code}): {tail}")
    returncode = int(data["code"])
    return ExecOutcome(
        exit_code=returncode if returncode >= 0 else None,
        signal=-returncode if returncode < 0 else None,
        stdout=data["stdout"], stderr=data["stderr"], timed_out=data["timed_out"],
        output_truncated=data["truncated"], duration_s=data["duration_s"], files=data["files"],
    )
