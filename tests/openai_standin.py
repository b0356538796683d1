"""A stand-in OpenAI-compatible server on loopback, speaking ``POST /v1/chat/completions``
the way OpenAI does: a chat completion with usage, or an error body
(``{"error": {"message", "type", "code"}}``) with its HTTP status. The real LiteLLM and
OpenAI clients talk to it, so their error mapping is what the tests exercise (the scripted
fake raises litellm's classes itself). Each request is kept: path, headers, JSON body."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = tuple[int, dict[str, Any]]
"""An HTTP status and the JSON body to send."""


def completion(text: str, *, prompt_tokens: int = 12, completion_tokens: int = 3) -> Answer:
    """A 200 chat completion answering ``text``."""
    return 200, {
        "id": "chatcmpl-standin", "object": "chat.completion", "created": int(time.time()),
        "model": "standin",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


def error(status: int, message: str, kind: str, code: str | None = None) -> Answer:
    """An OpenAI error body with its status."""
    return status, {"error": {"message": message, "type": kind, "param": None, "code": code}}


REFUSED_KEY = error(401, "Incorrect API key provided: sk-test-wrong. You can find your API "
                         "key at https://platform.openai.com/account/api-keys.",
                    "invalid_request_error", "invalid_api_key")
NO_ACCESS = error(403, "Project does not have access to model `x`", "invalid_request_error",
                  "model_not_found")
UNKNOWN_MODEL = error(404, "The model `x` does not exist or you do not have access to it.",
                      "invalid_request_error", "model_not_found")
QUOTA = error(429, "You exceeded your current quota, please check your plan and billing "
                   "details.", "insufficient_quota", "insufficient_quota")


@dataclass
class StandIn:
    """The server's address and what it was asked; ``answer`` decides each reply."""

    url: str
    answer: Callable[[dict[str, Any]], Answer]
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def solve_add_tasks(body: dict[str, Any]) -> Answer:
    """Answer a chat request: "ok" to anything but a prompt defining ``addN(a, b)``, which
    gets the function returning ``a + b + N``."""
    prompt = str(body["messages"][-1]["content"])
    task = re.search(r"def add(\d+)\(a, b\)", prompt)
    if task is None:
        return completion("ok", prompt_tokens=9, completion_tokens=1)
    n = task.group(1)
    return completion(f"```python\ndef add{n}(a, b):\n    return a + b + {n}\n```",
                      prompt_tokens=60, completion_tokens=20)


def _handler(server: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            with server.lock:
                server.requests.append({"path": self.path, "body": body,
                                        "authorization": self.headers.get("authorization")})
            if not self.path.endswith("/chat/completions"):
                status, reply = error(404, f"no route {self.path}", "invalid_request_error")
            else:
                status, reply = server.answer(body)
            data = json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def openai_standin(answer: Callable[[dict[str, Any]], Answer] = solve_add_tasks
                   ) -> Iterator[StandIn]:
    """Serve on a free loopback port until the block ends; ``url`` is its ``/v1`` base."""
    state = StandIn(url="", answer=answer)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, name="openai-standin", daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def dead_port() -> int:
    """A loopback port nothing listens on (bound, then released: connecting is refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
