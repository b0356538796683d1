"""Security headers on every response (a pure ASGI middleware): a Content-Security-Policy
(the pages load the hub's own stylesheet and nothing else: no script, no inline style, no
other site), no framing, no MIME sniffing, no referrer sent to other sites. A response that
sets its own policy (``/docs``) keeps it."""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

PAGE_POLICY = ("default-src 'none'; style-src 'self'; img-src 'self' data:; "
               "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
"""The pages: server-rendered HTML, their stylesheet at ``/static``, SVG charts inline."""

HEADERS = (
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
)


def script_policy(html: str) -> str:
    """The policy of a page that runs the hub's own scripts (Swagger UI at ``/docs``): its
    scripts from the hub, and its inline scripts by their SHA-256 only."""
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"
        for script in re.findall(r"<script>(.*?)</script>", html, flags=re.DOTALL))
    return (f"default-src 'none'; script-src 'self' {hashes}; style-src 'self'; "
            "img-src 'self' data:; connect-src 'self'; form-action 'self'; "
            "frame-ancestors 'none'; base-uri 'none'")


class SecurityHeaders:
    """Adds :data:`HEADERS` and, unless the response has one, :data:`PAGE_POLICY`."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in HEADERS if name not in present]
                if b"content-security-policy" not in present:
                    headers.append((b"content-security-policy", PAGE_POLICY.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
