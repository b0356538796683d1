"""A hub served by ``req2rank-hub serve`` behind a reverse proxy that adds X-Forwarded-For and
X-Forwarded-Proto, as nginx does: the per-address limit counts the clients, links use
``--public-url``, and the headers are believed from the proxy's address only.

Every address is on the loopback interface: the proxy reaches the hub from 127.0.0.1 (the
address the hub trusts by default), clients come from 127.0.0.2-127.0.0.4."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
import uvicorn
from hub_server import Hub, free_port, hub_process, make_payload

_HOP_BY_HOP = {b"connection", b"keep-alive", b"transfer-encoding", b"content-length",
               b"x-forwarded-proto", b"host"}


def _proxy_app(target: str) -> Any:
    """An ASGI app forwarding each request to ``target`` from 127.0.0.1, appending the
    client's address to X-Forwarded-For and saying the client used https."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        headers = {key: value for key, value in scope["headers"] if key not in _HOP_BY_HOP}
        client = scope["client"][0].encode()
        forwarded = headers.pop(b"x-forwarded-for", None)
        headers[b"x-forwarded-for"] = forwarded + b", " + client if forwarded else client
        headers[b"x-forwarded-proto"] = b"https"
        url = target + scope["raw_path"].decode() + (
            "?" + scope["query_string"].decode() if scope["query_string"] else "")
        transport = httpx.AsyncHTTPTransport(local_address="127.0.0.1")
        async with httpx.AsyncClient(transport=transport, timeout=30) as upstream:
            answer = await upstream.request(scope["method"], url, content=body,
                                            headers=list(headers.items()))
        content = answer.content
        reply = [(key.lower(), value) for key, value in answer.headers.raw
                 if key.lower() not in _HOP_BY_HOP | {b"content-encoding"}]
        await send({"type": "http.response.start", "status": answer.status_code,
                    "headers": [*reply, (b"content-length", str(len(content)).encode())]})
        await send({"type": "http.response.body", "body": content})

    return app


@contextmanager
def reverse_proxy(target: str) -> Iterator[str]:
    """The proxy served on 127.0.0.1 at a free port, in a thread; yields its address."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(_proxy_app(target), host="127.0.0.1", port=port,
                                           lifespan="off", proxy_headers=False,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the proxy did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _from(address: str, base_url: str, **headers: str) -> httpx.Client:
    """A client whose connections come from ``address``."""
    return httpx.Client(base_url=base_url, headers=headers, timeout=30,
                        transport=httpx.HTTPTransport(local_address=address))


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Hub, str]]:
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("FORWARDED_ALLOW_IPS", raising=False)  # the default: trust 127.0.0.1
        with hub_process(tmp_path_factory.mktemp("proxied"),
                         args=("--public-url", "https://hub.example.org/"),
                         env={"R2R_HUB_PUBLIC_RATE": "3/minute"}) as hub, \
                reverse_proxy(hub.url) as proxy:
            yield hub, proxy


def _board_codes(client: httpx.Client, times: int) -> list[int]:
    return [client.get("/api/leaderboard").status_code for _ in range(times)]


def test_the_limit_counts_each_client_behind_the_proxy(proxied: tuple[Hub, str]) -> None:
    _hub, proxy = proxied
    with _from("127.0.0.3", proxy) as first, \
            _from("127.0.0.4", proxy, **{"X-Forwarded-For": "198.51.100.7"}) as second:
        assert _board_codes(first, 4) == [200, 200, 200, 429]
        # Another client behind the same proxy has its own count; what it claims in its own
        # X-Forwarded-For is before the proxy's entry and not believed.
        assert _board_codes(second, 4) == [200, 200, 200, 429]
        limited = first.get("/api/leaderboard")
    assert limited.json()["error"]["code"] == "rate_limited"


def test_forwarded_headers_from_an_untrusted_address_are_ignored(proxied: tuple[Hub, str]
                                                                 ) -> None:
    hub, _proxy = proxied
    with _from("127.0.0.2", hub.url) as direct:
        codes = [direct.get("/api/leaderboard",
                            headers={"X-Forwarded-For": f"203.0.113.{n}"}).status_code
                 for n in range(4)]
    assert codes == [200, 200, 200, 429]  # one address, 127.0.0.2, whatever it claims


def test_submission_links_use_the_public_url(proxied: tuple[Hub, str]) -> None:
    hub, proxy = proxied
    with _from("127.0.0.5", proxy, Authorization=f"Bearer {hub.token('proxied')}") as client:
        answer = client.post("/api/submissions", json=make_payload(client))
    assert answer.status_code == 201, answer.text
    assert answer.json()["url"] == f"https://hub.example.org/submissions/{answer.json()['id']}"
