"""A fake Docker Engine API on a unix socket: enough of it for the docker SDK calls we make.

The "container" is a directory: ``put_archive`` extracts into it and ``exec``
runs the command on this host with ``/work`` mapped into that directory (the
runner refuses to sweep processes unless pid 1 is the container's keeper, so
nothing outside is signalled). Every request is recorded for assertions.
"""

from __future__ import annotations

import io
import json
import re
import socketserver
import subprocess
import sys
import tarfile
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any


class FakeEngine(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, socket_path: str, root: Path) -> None:
        self.root = root
        self.calls: list[tuple[str, str, Any]] = []
        self.created: dict[str, Any] = {}
        self.execs: dict[str, dict[str, Any]] = {}
        self.removed = False
        super().__init__(socket_path, Handler)

    def start(self) -> None:
        threading.Thread(target=self.serve_forever, daemon=True).start()


class Handler(BaseHTTPRequestHandler):
    server: FakeEngine
    protocol_version = "HTTP/1.1"

    def address_string(self) -> str:
        return "fake"

    def log_message(self, *_args: object) -> None:
        pass

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _json(self, status: int, data: Any) -> None:
        raw = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def _empty(self, status: int) -> None:
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _route(self, method: str) -> None:
        path = re.sub(r"^/v[\d.]+", "", self.path.split("?")[0])
        body = self._body()
        self.server.calls.append((method, path, body[:2000]))
        engine = self.server
        if path == "/_ping":
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"OK")
        elif path == "/version":
            self._json(200, {"ApiVersion": "1.43", "Version": "fake", "MinAPIVersion": "1.12"})
        elif re.fullmatch(r"/images/.+/json", path):
            self._json(200, {"Id": "sha256:fake"})
        elif path == "/containers/create":
            engine.created = json.loads(body)
            self._json(201, {"Id": "c0ffee", "Warnings": []})
        elif path == "/containers/c0ffee/start":
            self._empty(204)
        elif path == "/containers/c0ffee/json":
            self._json(200, {"Id": "c0ffee", "Name": "/fake", "Config": engine.created,
                             "State": {"Running": True}})
        elif path == "/containers/c0ffee/archive" and method == "PUT":
            with tarfile.open(fileobj=io.BytesIO(body)) as tar:
                tar.extractall(engine.root / "work", filter="fully_trusted")
            self._empty(200)
        elif path == "/containers/c0ffee/exec":
            exec_id = f"e{len(engine.execs)}"
            engine.execs[exec_id] = json.loads(body)
            self._json(201, {"Id": exec_id})
        elif re.fullmatch(r"/exec/e\d+/start", path):
            self._exec(engine.execs[path.split("/")[2]])
        elif re.fullmatch(r"/exec/e\d+/json", path):
            self._json(200, {"ExitCode": engine.execs[path.split("/")[2]]["exit"],
                             "Running": False})
        elif path == "/containers/c0ffee" and method == "DELETE":
            engine.removed = True
            self._empty(204)
        else:
            self._json(404, {"message": f"fake engine: no route {method} {path}"})

    def _exec(self, spec: dict[str, Any]) -> None:
        work = str(self.server.root / "work")
        argv = [arg.replace("/work", work) for arg in spec["Cmd"]]
        argv[0] = sys.executable if argv[0] == "python3" else argv[0]
        done = subprocess.run(argv, capture_output=True, check=False, timeout=60)
        spec["exit"] = done.returncode
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.docker.raw-stream")
        self.end_headers()
        self.wfile.flush()
        time.sleep(0.05)  # the SDK reads the stream from the raw socket after the headers
        for stream, data in ((1, done.stdout), (2, done.stderr)):
            if data:
                self.wfile.write(bytes([stream, 0, 0, 0]) + len(data).to_bytes(4, "big") + data)
        self.wfile.flush()
        self.close_connection = True

    def do_GET(self) -> None:  # noqa: N802
        self._route("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._route("POST")

    def do_PUT(self) -> None:  # noqa: N802
        self._route("PUT")

    def do_DELETE(self) -> None:  # noqa: N802
        self._route("DELETE")
