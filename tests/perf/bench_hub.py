"""The hub under load on SQLite and on PostgreSQL: 200 submissions from 20 clients each.

Not collected by pytest. Run: ``python tests/perf/bench_hub.py [--clients 20] [--submissions
200] [--items 20] [--reads 1] [--no-postgres]``. For each database it starts a real hub in
a process of its own (``req2rank-hub serve`` on 127.0.0.1, a free port; so the clients'
threads do not share its interpreter): SQLite in a temporary directory (the baseline), then
a PostgreSQL server started here from Debian's binaries (as ``nobody`` when run as root,
like the tests); re-verification is off (it would ask the runs' models). Each client has
its own user and, in turn, fetches a nonce, submits a run of ``--items`` synthetic items
with its evidence chain, and reads the leaderboard.

Prints per database: the submissions/second, p50/p95 latency of submissions and
leaderboard reads, every HTTP status seen, the CPU time the hub's process used, and a count of the kept rows (all, and distinct
run ids: none lost, none duplicated); then PostgreSQL's figures as ratios of SQLite's,
measured in the same run. Exits 1 when a submission was lost, duplicated or answered with
anything but 201. Wall times only; the clients stay on the loopback interface.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the hub's helpers

from hub_server import (
    Hub,
    PostgresUnavailable,
    hub_process,
    make_items,
    make_payload,
    postgres_server,
)


@dataclass
class Load:
    """What one database's run measured."""

    wall_s: float = 0.0
    submits: list[float] = field(default_factory=list)
    reads: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    read_statuses: Counter[int] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    sent_run_ids: list[str] = field(default_factory=list)
    rows: int = 0
    distinct_run_ids: int = 0
    hub_cpu_s: float = 0.0
    """CPU time the hub's process used during the load (user + system)."""

    @property
    def throughput(self) -> float:
        return len(self.submits) / self.wall_s


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _cpu_seconds(pid: int | None) -> float:
    """User + system CPU time of process ``pid`` so far (Linux /proc)."""
    import os

    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load(hub: Hub, clients: int, submissions: int, items: int, reads: int) -> Load:
    """``submissions`` runs from ``clients`` concurrent clients, each read ``reads`` times."""
    from sqlalchemy import text

    tokens = [hub.token(f"bench{n}") for n in range(clients)]
    per_client = [submissions // clients + (n < submissions % clients) for n in range(clients)]
    result = Load()
    lock = threading.Lock()

    def work(token: str, count: int) -> None:
        with hub.client(token) as client:
            for _ in range(count):
                try:
                    payload = make_payload(client, items=make_items(items))
                    t0 = time.perf_counter()
                    response = client.post("/api/submissions", json=payload)
                    took = time.perf_counter() - t0
                    with lock:
                        result.submits.append(took)
                        result.statuses[response.status_code] += 1
                        result.sent_run_ids.append(payload["results"]["run"]["id"])
                    for _ in range(reads):
                        t0 = time.perf_counter()
                        board = client.get("/api/leaderboard")
                        took = time.perf_counter() - t0
                        with lock:
                            result.reads.append(took)
                            result.read_statuses[board.status_code] += 1
                except Exception as exc:  # noqa: BLE001 - counted and shown, not fatal
                    with lock:
                        result.errors[f"{type(exc).__name__}: {exc}"[:120]] += 1

    cpu, start = _cpu_seconds(hub.pid), time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(work, tokens, per_client))
    result.wall_s = time.perf_counter() - start
    result.hub_cpu_s = _cpu_seconds(hub.pid) - cpu
    with hub.app.state.engine.connect() as connection:
        result.rows = connection.scalar(text("SELECT count(*) FROM submissions"))
        result.distinct_run_ids = connection.scalar(
            text("SELECT count(DISTINCT run_id) FROM submissions"))
    return result


def report(name: str, measured: Load, submissions: int) -> list[str]:
    """Lines describing ``measured``; the problems found, if any, are returned."""
    submit_p50, submit_p95 = _percentile(measured.submits, 0.5), _percentile(measured.submits, 0.95)
    read_p50, read_p95 = _percentile(measured.reads, 0.5), _percentile(measured.reads, 0.95)
    print(f"{name}: {len(measured.submits)} submissions in {measured.wall_s:.1f} s "
          f"({measured.throughput:.1f}/s); submission statuses {dict(measured.statuses)}, "
          f"leaderboard statuses {dict(measured.read_statuses)}")
    print(f"  POST /api/submissions  p50 {1000 * submit_p50:7.1f} ms  "
          f"p95 {1000 * submit_p95:7.1f} ms")
    print(f"  GET /api/leaderboard   p50 {1000 * read_p50:7.1f} ms  p95 {1000 * read_p95:7.1f} ms")
    print(f"  hub process CPU {measured.hub_cpu_s:.1f} s over {measured.wall_s:.1f} s "
          f"({100 * measured.hub_cpu_s / measured.wall_s:.0f}% of one core)")
    print(f"  kept: {measured.rows} rows, {measured.distinct_run_ids} distinct run ids "
          f"(sent {len(set(measured.sent_run_ids))})")
    problems = [f"{name}: {error} (x{count})" for error, count in measured.errors.items()]
    if measured.statuses != Counter({201: submissions}):
        problems.append(f"{name}: submissions answered {dict(measured.statuses)}")
    if set(measured.read_statuses) - {200}:
        problems.append(f"{name}: leaderboard reads answered {dict(measured.read_statuses)}")
    if measured.rows != submissions or measured.distinct_run_ids != submissions:
        problems.append(f"{name}: {measured.rows} rows, {measured.distinct_run_ids} distinct "
                        f"run ids kept for {submissions} submissions")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--submissions", type=int, default=200)
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--reads", type=int, default=1, help="Leaderboard reads per submission")
    parser.add_argument("--no-postgres", action="store_true", help="Measure SQLite only")
    args = parser.parse_args()
    per_client = -(-args.submissions // args.clients)
    env = {"R2R_HUB_DAILY_SUBMISSIONS": str(per_client + 1),
           "R2R_HUB_PUBLIC_RATE": "100000/minute"}
    measured: dict[str, Load] = {}
    print(f"{args.submissions} submissions of {args.items} items from {args.clients} clients")
    with tempfile.TemporaryDirectory() as directory:
        with hub_process(Path(directory) / "sqlite", env=env) as hub:
            measured["SQLite"] = load(hub, args.clients, args.submissions, args.items, args.reads)
        if not args.no_postgres:
            try:
                with postgres_server() as url, \
                        hub_process(Path(directory) / "pg", url, env=env) as hub:
                    measured["PostgreSQL"] = load(hub, args.clients, args.submissions,
                                                  args.items, args.reads)
            except PostgresUnavailable as exc:
                print(f"PostgreSQL not measured: {exc}")
    problems = [line for name, run in measured.items()
                for line in report(name, run, args.submissions)]
    if "PostgreSQL" in measured:
        base, pg = measured["SQLite"], measured["PostgreSQL"]
        print("PostgreSQL / SQLite (the baseline, same run): "
              f"throughput {pg.throughput / base.throughput:.2f}x, "
              f"submission p50 {_percentile(pg.submits, .5) / _percentile(base.submits, .5):.2f}x "
              f"p95 {_percentile(pg.submits, .95) / _percentile(base.submits, .95):.2f}x, "
              f"leaderboard p50 {_percentile(pg.reads, .5) / _percentile(base.reads, .5):.2f}x "
              f"p95 {_percentile(pg.reads, .95) / _percentile(base.reads, .95):.2f}x")
    for line in problems:
        print(f"PROBLEM {line}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
