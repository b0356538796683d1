"""Refusing oversized request bodies before they are read whole (a pure ASGI middleware)."""

from __future__ import annotations

import json
from typing import Any

Scope = dict[str, Any]

OTHER_BODY_BYTES = 1024 * 1024
"""The most a request other than a submission sends (a nonce's declared settings, a report,
a sign-in form): read whole before the route signs its sender in, so kept small."""


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
    """Answer 413 to a request whose body exceeds its limit, by its Content-Length or,
    without one, as it streams in (stopping there): ``limit`` bytes for the ``streamed``
    paths, whose bodies are left to their routes to read as they arrive (``_bodies``), after
    signing in; ``other_limit`` for every other path."""

    def __init__(self, app: Any, limit: int, streamed: frozenset[str] = frozenset(),
                 other_limit: int = OTHER_BODY_BYTES) -> None:
        self.app, self.streamed = app, streamed
        self.limit, self.other_limit = limit, other_limit

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        streamed = scope.get("path") in self.streamed
        limit = self.limit if streamed else min(self.limit, self.other_limit)
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            await self._refuse(send, limit)
            return
        if streamed:
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
            if size > limit:
                await self._refuse(send, limit)
                return
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(chunks, None, receive), send)

    @staticmethod
    async def _refuse(send: Any, limit: int) -> None:
        body = json.dumps({"error": {"code": "payload_too_large", "message": (
            f"the request body exceeds {limit} bytes, the most this hub takes here")}}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
