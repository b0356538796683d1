"""The ``sandboxfusion`` backend: executions on a SandboxFusion service (scale-out).

The service URL comes from the backend name (``sandboxfusion:http://host:8080``)
or ``R2R_SANDBOX_URL``. We speak its HTTP API (``POST {url}/run_code``) with httpx
rather than through the ``sandbox-fusion`` client, whose ``run_code`` retries
for ~15 s and folds "SandboxError" into a bare exception. Mapping: a response
with status ``SandboxError``, a non-200 answer or no answer is a sandbox failure
(``ExecOutcome.error``; the grader retries once); ``Success`` and ``Failed`` are
what the code did (``Failed`` is a non-zero exit or a timeout).
"""

from __future__ import annotations

import base64
import os
import signal
from collections.abc import Mapping
from typing import Any

import httpx

from ..models import IsolationLevel
from ._base import PYTHON, ExecOutcome, ExecRequest, Sandbox, SandboxUnavailable
from ._files import check_path

PROBE_TIMEOUT_S = 3.0
HTTP_SLACK_S = 10.0
"""Network and queueing time allowed on top of the execution's own timeout."""


def service_url(url: str | None, environ: Mapping[str, str]) -> str | None:
    """``url`` (from ``sandboxfusion:URL``), else ``R2R_SANDBOX_URL``, else None."""
    return (url or environ.get("R2R_SANDBOX_URL", "")).rstrip("/") or None


class SandboxFusionSandbox(Sandbox):
    """Runs each execution as one ``run_code`` call; the service owns the isolation."""

    name = "sandboxfusion"

    def __init__(self, url: str | None = None, *, probe: bool = True) -> None:
        self.url = service_url(url, os.environ)
        if not self.url:
            raise SandboxUnavailable(
                "sandbox 'sandboxfusion' needs a service URL: use --r2r-sandbox="
                "sandboxfusion:http://HOST:8080 or set R2R_SANDBOX_URL (or pick --r2r-sandbox=process)"
            )
        self._http = httpx.Client(timeout=PROBE_TIMEOUT_S)
        if probe:
            self._probe()

    def _probe(self) -> None:
        """One attempt, a few seconds at most: a trivial program must come back."""
        try:
            reply = self._http.post(f"{self.url}/run_code", json={
                "code": "print(1)", "language": "python", "run_timeout": PROBE_TIMEOUT_S})
            ok = reply.status_code == 200 and reply.json().get("status") == "Success"
        except (httpx.HTTPError, ValueError) as exc:
            self._http.close()
            raise SandboxUnavailable(
                f"no SandboxFusion service answers at {self.url} ({type(exc).__name__}); "
                "start one or pick another backend (--r2r-sandbox=process)") from exc
        if not ok:
            self._http.close()
            raise SandboxUnavailable(
                f"the SandboxFusion service at {self.url} failed a trivial run "
                f"(HTTP {reply.status_code}); pick another backend (--r2r-sandbox=process)")

    @property
    def isolation(self) -> str:
        return f"sandboxfusion: SandboxFusion service at {self.url} (isolation is the service's)"

    @property
    def isolation_level(self) -> IsolationLevel:
        return "remote"

    def run(self, request: ExecRequest) -> ExecOutcome:
        if len(request.argv) != 2 or request.argv[0] != PYTHON:
            return ExecOutcome(error="sandboxfusion runs `python SCRIPT` only, "
                                     f"not {' '.join(request.argv)!r}")
        try:
            script = check_path(request.argv[1])
            files = request.all_files()
            for name in request.read_back:
                check_path(name)
            body = {
                "code": files[script], "language": "python", "stdin": request.stdin,
                "run_timeout": request.timeout_s,
                "memory_limit_MB": request.limits.memory_mb,
                "files": {check_path(name): base64.b64encode(text.encode()).decode()
                          for name, text in files.items() if name != script},
                "fetch_files": list(request.read_back),
            }
        except (ValueError, KeyError) as exc:
            return ExecOutcome(error=f"rejected: {exc}")
        try:
            reply = self._http.post(f"{self.url}/run_code", json=body,
                                    timeout=request.timeout_s + HTTP_SLACK_S)
        except httpx.HTTPError as exc:
            return ExecOutcome(error=f"SandboxFusion unreachable: {type(exc).__name__}: {exc}")
        if reply.status_code != 200:
            return ExecOutcome(error=f"SandboxFusion answered HTTP {reply.status_code}: "
                                     f"{reply.text[:200]}")
        try:
            return outcome_from(reply.json(), request)
        except (ValueError, TypeError, KeyError) as exc:
            return ExecOutcome(error=f"SandboxFusion sent an unreadable answer: {exc}")

    def close(self) -> None:
        self._http.close()


def outcome_from(data: dict[str, Any], request: ExecRequest) -> ExecOutcome:
    """Our outcome for a ``run_code`` response."""
    status = data.get("status")
    if status == "SandboxError":
        return ExecOutcome(error=f"SandboxFusion: {data.get('message') or 'sandbox error'}")
    run = data.get("run_result")
    if status not in ("Success", "Failed") or not isinstance(run, dict):
        return ExecOutcome(error=f"SandboxFusion: unexpected answer status {status!r}")
    cap = request.limits.output_bytes
    stdout, stderr = run.get("stdout") or "", run.get("stderr") or ""
    timed_out = run.get("status") == "TimeLimitExceeded"
    code = run.get("return_code")
    files = {name: base64.b64decode(text).decode("utf-8", errors="replace")[:cap]
             for name, text in (data.get("files") or {}).items() if name in request.read_back}
    return ExecOutcome(
        exit_code=None if timed_out or code is None else int(code),
        signal=signal.SIGKILL if timed_out else None,
        stdout=stdout[:cap], stderr=stderr[-cap:] if stderr else "",
        timed_out=timed_out, output_truncated=len(stdout) > cap or len(stderr) > cap,
        duration_s=float(run.get("execution_time") or 0.0),
        files=files,
    )
