"""The hub under load: 200 submissions from 20 clients, next to a request that does no work.

Not collected by pytest. Run: ``python tests/perf/bench_hub.py [--clients 20] [--submissions
200] [--items 20] [--database-url URL]`` (default: SQLite in a temporary directory; a
PostgreSQL URL measures that). Starts a real hub in its own process (``req2rank-hub serve``
on a free port, so the clients' threads do not share its interpreter), gives each
client its own user, and has the clients fetch a nonce and submit a run of ``--items``
synthetic items with its evidence chain, concurrently. Prints p50/p95 latency of nonces,
submissions and leaderboard reads, the submissions/second, and each p50 as a ratio of
``/healthz``'s p50 measured in the same run (the baseline: a request that does no work).
Wall times only; nothing here is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the hub fixture's helpers

from hub_server import Hub, free_port, make_items, make_payload  # noqa: E402

from pytest_req2rank.hub import HubConfig, migrate  # noqa: E402


@contextmanager
def served_hub(directory: Path, database_url: str | None, **settings: str) -> Iterator[Hub]:
    import os
    import subprocess

    import httpx

    url = database_url or f"sqlite:///{directory / 'hub.db'}"
    migrate(url)
    port = free_port()
    env = {**os.environ, "R2R_HUB_DIR": str(directory), **settings}
    server = subprocess.Popen([sys.executable, "-m", "pytest_req2rank.hub.cli", "--database-url",
                               url, "serve", "--port", str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    address = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(f"{address}/healthz").raise_for_status()
            break
        except httpx.HTTPError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the hub did not start") from None
            time.sleep(0.1)
    from pytest_req2rank.hub._database import make_engine, session_factory

    engine = make_engine(url)

    class _State:
        sessions = session_factory(engine)

    class _App:
        state = _State

    try:
        yield Hub(address, HubConfig(database_url=url), _App)
    finally:
        server.terminate()
        server.wait(timeout=30)
        engine.dispose()


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _line(name: str, values: list[float], baseline: float) -> str:
    p50, p95 = _percentile(values, 0.5), _percentile(values, 0.95)
    return (f"{name:<22} n={len(values):<4} p50 {1000 * p50:8.1f} ms  p95 {1000 * p95:8.1f} ms"
            f"  p50/baseline {p50 / baseline:7.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--submissions", type=int, default=200)
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--database-url")
    args = parser.parse_args()
    per_client = -(-args.submissions // args.clients)
    settings = {"R2R_HUB_DAILY_SUBMISSIONS": str(per_client + 1),
                "R2R_HUB_PUBLIC_RATE": "100000/minute"}
    with tempfile.TemporaryDirectory() as directory, \
            served_hub(Path(directory), args.database_url, **settings) as hub:
        tokens = [hub.token(f"bench{n}") for n in range(args.clients)]
        with hub.client() as client:
            health = []
            for _ in range(50):
                t0 = time.perf_counter()
                client.get("/healthz").raise_for_status()
                health.append(time.perf_counter() - t0)
        baseline = statistics.median(health)
        nonces: list[float] = []
        submits: list[float] = []
        reads: list[float] = []
        statuses: dict[int, int] = {}

        def work(token: str) -> None:
            with hub.client(token) as client:
                for _ in range(per_client):
                    t0 = time.perf_counter()
                    payload = make_payload(client, items=make_items(args.items))
                    nonces.append(time.perf_counter() - t0)  # nonce plus building the run here
                    t0 = time.perf_counter()
                    response = client.post("/api/submissions", json=payload)
                    submits.append(time.perf_counter() - t0)
                    statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
                    t0 = time.perf_counter()
                    client.get("/api/leaderboard").raise_for_status()
                    reads.append(time.perf_counter() - t0)

        start = time.perf_counter()
        with ThreadPoolExecutor(args.clients) as pool:
            list(pool.map(work, tokens))
        wall = time.perf_counter() - start
    print(f"hub on {args.database_url or 'SQLite'}: {len(submits)} submissions of {args.items} "
          f"items from {args.clients} clients in {wall:.1f} s ({len(submits) / wall:.1f}/s); "
          f"statuses {statuses}")
    print(_line("baseline /healthz", health, baseline))
    print(_line("nonce + build run", nonces, baseline))
    print(_line("POST /api/submissions", submits, baseline))
    print(_line("GET /api/leaderboard", reads, baseline))


if __name__ == "__main__":
    main()
