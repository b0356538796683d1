"""Refusing oversized request bodies before they are read whole (a pure ASGI middleware)."""

from __future__ import annotations

import json
from typing import Any

Scope = dict[str, Any]


def _replay(chunks: list[bytes], last: Any, receive_next: Any) -> Any:
    """A ``receive`` that gives the body read already, then waits as the server's would."""
    body = b"".join(chunks)
    sent = False

    async def receive() -> Any:
        nonlocal sent, last
        if last is not None:
            message, last = last, None
            return message
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive_next()

    return receive


class BodyLimit:
    """Answer 413 to a request whose body exceeds ``limit`` bytes, by its Content-Length or,
    without one, as it streams in (stopping there). The bodies of ``streamed`` paths are
    left to their routes, which read them as they arrive (``_bodies``), after signing in."""

    def __init__(self, app: Any, limit: int, streamed: frozenset[str] = frozenset()) -> None:
        self.app, self.limit, self.streamed = app, limit, streamed

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.limit:
            await self._refuse(send)
            return
        if scope.get("path") in self.streamed:
            await self.app(scope, receive, send)
            return
        # Read the body first (at most limit + one chunk), then hand it over: a framework
        # reading it would turn an error raised mid-stream into its own 400.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, _replay([], message, receive), send)
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.limit:
                await self._refuse(send)
                return
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(chunks, None, receive), send)

    async def _refuse(self, send: Any) -> None:
        body = json.dumps({"error": {"code": "payload_too_large", "message": (
            f"the request body exceeds {self.limit} bytes, the most this hub takes")}}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
