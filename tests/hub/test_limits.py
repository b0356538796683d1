"""Limits of a hub configured tight: request size and requests per address."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from hub_server import Hub, make_payload, running_hub


@pytest.fixture(scope="module")
def tight_hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    with running_hub(Path(tmp_path_factory.mktemp("tight")), max_payload_bytes=20_000,
                     public_rate="5/minute") as running:
        yield running


def test_an_oversized_payload_is_refused(tight_hub: Hub) -> None:
    with tight_hub.client(tight_hub.token("big")) as client:
        payload = make_payload(client)
        payload["results"]["run"]["settings"]["padding"] = "x" * 30_000
        response = client.post("/api/submissions", json=payload)
        assert response.status_code == 413
        assert response.json()["error"]["code"] == "payload_too_large"

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it streams in
            yield b'{"nonce": "n", "results": {"padding": "'
            for _ in range(30):
                yield b"x" * 1000
            yield b'"}, "evidence": []}'

        streamed = client.post("/api/submissions", content=chunks(),
                               headers={"Content-Type": "application/json"})
        assert streamed.status_code == 413


def test_unauthenticated_endpoints_are_limited_per_address(tight_hub: Hub) -> None:
    with httpx.Client(base_url=tight_hub.url) as client:
        codes = [client.get("/api/leaderboard").status_code for _ in range(7)]
        limited = client.get("/api/leaderboard")
    assert codes[:5] == [200] * 5 and 429 in codes[5:]
    assert limited.json()["error"]["code"] == "rate_limited"
