"""A fake Docker Engine API on a unix socket, for the failures a real engine cannot be made
to produce on demand: it answers ``/_ping`` and ``/version`` and fails every other request
with the status and message it is given. Every request is recorded."""

from __future__ import annotations

import json
import re
import socketserver
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any


class FakeEngine(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, socket_path: str, status: int, message: str) -> None:
        self.status, self.message = status, message
        self.calls: list[tuple[str, str]] = []
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

    def _json(self, status: int, data: Any) -> None:
        raw = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def _route(self, method: str) -> None:
        path = re.sub(r"^/v[\d.]+", "", self.path.split("?")[0])
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.calls.append((method, path))
        if path == "/_ping":
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"OK")
        elif path == "/version":
            self._json(200, {"ApiVersion": "1.43", "Version": "fake", "MinAPIVersion": "1.12"})
        else:
            self._json(self.server.status, {"message": self.server.message})

    def do_GET(self) -> None:
        self._route("GET")

    def do_POST(self) -> None:
        self._route("POST")
