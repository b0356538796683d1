"""Where the per-address limits count (R2R_HUB_RATE_STORAGE): in each process by default;
shared by two hub processes through Redis; a storage that stops answering does not stop
the hub."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from hub_server import free_port, hub_process

from pytest_req2rank.hub.cli import main


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A Redis server of this test on a free loopback port, keeping nothing on disk."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (.ci/redis.sh installs Debian's redis-server)")
    pytest.importorskip("redis", reason="the redis client is part of the dev extra")
    port = free_port()
    server = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no", "--dir", str(tmp_path)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    import redis

    client = redis.Redis(host="127.0.0.1", port=port)
    deadline = time.monotonic() + 30
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            assert server.poll() is None and time.monotonic() < deadline, "Redis did not start"
            time.sleep(0.05)
    try:
        yield f"redis://127.0.0.1:{port}"
    finally:
        client.close()
        server.terminate()
        server.wait(timeout=30)


def _codes(url: str, times: int) -> list[int]:
    with httpx.Client(base_url=url) as client:
        return [client.get("/api/leaderboard").status_code for _ in range(times)]


@pytest.mark.slow  # a Redis server and two hub processes
def test_two_processes_share_the_limit_through_redis(redis_url: str, tmp_path: Path) -> None:
    shared = {"R2R_HUB_PUBLIC_RATE": "4/minute", "R2R_HUB_RATE_STORAGE": redis_url}
    database = f"sqlite:///{tmp_path / 'hub.db'}"
    with hub_process(tmp_path / "a", database, env=shared) as first, \
            hub_process(tmp_path / "b", database, env=shared) as second:
        assert _codes(first.url, 2) + _codes(second.url, 2) == [200] * 4
        # counted in each process's memory (the default), each would allow 2 more
        assert _codes(first.url, 1) + _codes(second.url, 1) == [429, 429]


@pytest.mark.slow  # a Redis server and a hub process
def test_the_hub_keeps_serving_when_redis_stops(redis_url: str, tmp_path: Path) -> None:
    import redis

    settings = {"R2R_HUB_PUBLIC_RATE": "3/minute", "R2R_HUB_RATE_STORAGE": redis_url}
    with hub_process(tmp_path, env=settings) as hub:
        assert _codes(hub.url, 1) == [200]
        redis.Redis.from_url(redis_url).shutdown(nosave=True)
        # counted in the process's memory from now on: the limit still holds
        assert _codes(hub.url, 4) == [200, 200, 200, 429]


def test_a_storage_it_does_not_know_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("R2R_HUB_DIR", str(tmp_path))
    monkeypatch.setenv("R2R_HUB_RATE_STORAGE", "redis2://:secret@cache:6379")
    assert main(["serve", "--port", "1"]) == 2
    assert capsys.readouterr().err.strip() == (
        "req2rank-hub: R2R_HUB_RATE_STORAGE (redis2://...): unknown storage scheme; give "
        "memory:// or redis://HOST:PORT (with `pip install 'limits[redis]'`)")
