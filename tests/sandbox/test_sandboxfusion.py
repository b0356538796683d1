"""The sandboxfusion backend against a local HTTP server that speaks SandboxFusion's run_code API."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from pytest_req2rank.models import SandboxSpec
from pytest_req2rank.sandbox import (
    PYTHON,
    ExecRequest,
    SandboxUnavailable,
    create_sandbox,
)


class Service(ThreadingHTTPServer):
    daemon_threads = True
    fault: str = ""  # "", "sandbox_error", "http_500"
    requests: list[dict[str, Any]]


class Handler(BaseHTTPRequestHandler):
    server: Service

    def log_message(self, *_args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        if self.path != "/run_code" or self.server.fault == "http_500":
            self.send_response(500)
            self.end_headers()
            return
        answer = run_code(body) if self.server.fault != "sandbox_error" or body["code"] == \
            "print(1)" else {"status": "SandboxError", "message": "executor pod lost"}
        raw = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


def run_code(body: dict[str, Any]) -> dict[str, Any]:
    """What the service does: the files and the code in a temp dir, run with a timeout."""
    with tempfile.TemporaryDirectory() as work:
        for name, data in body.get("files", {}).items():
            (Path(work) / name).parent.mkdir(parents=True, exist_ok=True)
            (Path(work) / name).write_bytes(base64.b64decode(data))
        (Path(work) / "code.py").write_text(body["code"])
        try:
            done = subprocess.run([sys.executable, "code.py"], cwd=work, input=body.get("stdin") or "",
                                  capture_output=True, text=True, timeout=body["run_timeout"],
                                  check=False)
            run = {"status": "Finished", "return_code": done.returncode, "stdout": done.stdout,
                   "stderr": done.stderr, "execution_time": 0.01}
        except subprocess.TimeoutExpired:
            run = {"status": "TimeLimitExceeded", "return_code": None, "stdout": "", "stderr": "",
                   "execution_time": body["run_timeout"]}
        files = {name: base64.b64encode((Path(work) / name).read_bytes()).decode()
                 for name in body.get("fetch_files", []) if (Path(work) / name).is_file()}
    ok = run["status"] == "Finished" and run["return_code"] == 0
    return {"status": "Success" if ok else "Failed", "message": "", "compile_result": None,
            "run_result": run, "executor_pod_name": None, "files": files}


@pytest.fixture()
def service() -> Iterator[Service]:
    server = Service(("127.0.0.1", 0), Handler)
    server.requests = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def url(service: Service) -> str:
    return f"http://127.0.0.1:{service.server_address[1]}"


def test_runs_code_and_maps_success_failure_and_timeouts(service: Service) -> None:
    with create_sandbox(f"sandboxfusion:{url(service)}") as box:
        assert url(service) in box.isolation
        ok = box.run(ExecRequest(
            files={"main.py": "from helper import twice\nprint(twice(int(input())))\n"
                              "open('out.txt', 'w').write('kept')\n",
                   "helper.py": "def twice(x):\n    return 2 * x\n"},
            argv=(PYTHON, "main.py"), stdin="21\n", read_back=("out.txt",)))
        failed = box.run(ExecRequest(files={"main.py": "raise SystemExit(4)"},
                                     argv=(PYTHON, "main.py")))
        slow = box.run(ExecRequest(files={"main.py": "while True:\n    pass\n"},
                                   argv=(PYTHON, "main.py"), timeout_s=0.3))
    assert (ok.stdout, ok.exit_code, ok.files, ok.error) == ("42\n", 0, {"out.txt": "kept"}, None)
    assert failed.exit_code == 4 and failed.error is None  # "Failed" is the code's fault
    assert slow.timed_out and slow.error is None
    sent = service.requests[1]
    assert sent["language"] == "python" and sent["fetch_files"] == ["out.txt"]
    assert base64.b64decode(sent["files"]["helper.py"]).startswith(b"def twice")


def test_sandbox_error_and_http_failures_are_our_errors(service: Service) -> None:
    with create_sandbox(f"sandboxfusion:{url(service)}") as box:
        service.fault = "sandbox_error"
        lost = box.run(ExecRequest(files={"main.py": "print(2)"}, argv=(PYTHON, "main.py")))
        service.fault = "http_500"
        broken = box.run(ExecRequest(files={"main.py": "print(2)"}, argv=(PYTHON, "main.py")))
    assert lost.error == "SandboxFusion: executor pod lost"
    assert broken.error is not None and "HTTP 500" in broken.error


def test_url_from_environment_and_clean_errors(service: Service,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("R2R_SANDBOX_URL", url(service))
    with create_sandbox("sandboxfusion") as box:
        assert box.run(ExecRequest(files={"main.py": "print(3)"},
                                   argv=(PYTHON, "main.py"))).stdout == "3\n"
    monkeypatch.delenv("R2R_SANDBOX_URL")
    with pytest.raises(SandboxUnavailable, match="needs a service URL"):
        create_sandbox("sandboxfusion")
    service.fault = "http_500"
    with pytest.raises(SandboxUnavailable, match="failed a trivial run"):
        create_sandbox(f"sandboxfusion:{url(service)}")
    assert len([r for r in service.requests if r["code"] == "print(1)"]) == 2  # one probe each
    with pytest.raises(SandboxUnavailable, match="no SandboxFusion service answers") as caught:
        create_sandbox("sandboxfusion:http://127.0.0.1:9")
    assert "\n" not in str(caught.value)


def test_backend_names() -> None:
    assert str(SandboxSpec.parse(" sandboxfusion:http://h:8080 ")) == "sandboxfusion:http://h:8080"
    assert SandboxSpec.parse("sandboxfusion:http://h:8080").option == "http://h:8080"
    assert SandboxSpec.parse("process:bwrap").process_mode == "bwrap"
    with pytest.raises(ValueError, match="allowed: process, docker, sandboxfusion"):
        SandboxSpec.parse("firecracker")
    with pytest.raises(ValueError, match="unknown process mode 'jail'"):
        SandboxSpec.parse("process:jail")
