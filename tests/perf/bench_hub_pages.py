"""The hub's pages, timed against the leaderboard's JSON in the same run.

Not collected by pytest. Run: ``python tests/perf/bench_hub_pages.py [--models 10]
[--runs 10] [--items 20] [--reads 40] [--versions 10] [--paired]``. Starts a real hub in a
thread (SQLite in a temporary directory), submits ``--runs`` runs of ``--items`` items (each
with skills and a one-judge panel; each run's requirements its own, as their nonces draw
them, unless ``--paired``) for each of ``--models`` models, then reads each page ``--reads``
times in turn and prints the p50/p95 latency of each, and each p50 as a ratio of
``GET /api/leaderboard``'s p50 measured in the same run (the baseline: the ranking without a
page around it); then takes ``--versions`` runs out of the ranking one by one and times the
leaderboard's first read of each new version (its ranking computed, not kept). Wall times
only; nothing here is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the hub fixture's helpers

from hub_server import make_items, make_payload, running_hub

SKILLS = ["math", "strings", "parsing", "recursion"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--reads", type=int, default=40)
    parser.add_argument("--paired", action="store_true",
                        help="Every run asks the same requirements (else each its own)")
    parser.add_argument("--versions", type=int, default=10,
                        help="New leaderboard versions whose first read is timed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory, \
            running_hub(Path(directory), public_rate="1000000/minute",
                        daily_submissions=args.runs + 1) as hub:
        started = time.perf_counter()
        last_id = 0
        kept_ids: list[int] = []
        for model in range(args.models):
            with hub.client(hub.token(f"bench{model}")) as client:
                for run in range(args.runs):
                    scores = [40.0 + (7 * i + 3 * run + 5 * model) % 60
                              for i in range(args.items)]
                    items = make_items(args.items, scores=scores, dimensions={"quality": -5.0},
                                       skills=[[SKILLS[i % 4], SKILLS[(i + model) % 4]]
                                               for i in range(args.items)])
                    if not args.paired:  # each run's requirements its own, as a nonce draws
                        items = [item.model_copy(update={"requirement": {
                            **(item.requirement or {}), "title": f"{model}-{run}-{item.task_id}"}})
                            for item in items]
                    reply = client.post("/api/submissions", json=make_payload(
                        client, items=items, model=f"bench/model-{model}"))
                    assert reply.status_code == 201, reply.text
                    last_id = reply.json()["id"]
                    kept_ids.append(last_id)
                    hub.verified(last_id)  # the leaderboard pools the verified runs
        print(f"{args.models * args.runs} submissions of {args.items} items kept in "
              f"{time.perf_counter() - started:.1f} s")
        paths = {
            "api leaderboard (baseline)": "/api/leaderboard",
            "leaderboard page": "/",
            "leaderboard page, by skill": "/?skill=parsing",
            "leaderboard page, by dimension": "/?dimension=quality",
            "api leaderboard, skill+dimension": "/api/leaderboard?skill=math&dimension=quality",
            "model page": "/models/bench/model-3",
            "submission page": f"/submissions/{last_id}",
        }
        timings: dict[str, list[float]] = {name: [] for name in paths}
        with hub.client() as client:
            for _ in range(args.reads):
                for name, path in paths.items():
                    begin = time.perf_counter()
                    response = client.get(path)
                    timings[name].append(1000 * (time.perf_counter() - begin))
                    assert response.status_code == 200, (path, response.text[:200])
            # A leaderboard version is the set of verified runs: each run taken out of the
            # ranking makes a new one, whose first read computes its ranking.
            fresh = "api leaderboard, a new version's first read"
            timings[fresh] = []
            for submission_id in kept_ids[:args.versions]:
                hub.sql("UPDATE submissions SET status = 'disputed' WHERE id = :id",
                        id=submission_id)
                begin = time.perf_counter()
                response = client.get("/api/leaderboard")
                timings[fresh].append(1000 * (time.perf_counter() - begin))
                assert response.status_code == 200, response.text[:200]
    base = statistics.median(timings["api leaderboard (baseline)"])
    print(f"{'request':36} {'p50 ms':>8} {'p95 ms':>8} {'p50 ratio':>10}")
    for name, values in timings.items():
        p50 = statistics.median(values)
        p95 = statistics.quantiles(values, n=20)[18]
        print(f"{name:36} {p50:8.1f} {p95:8.1f} {p50 / base:9.2f}x")


if __name__ == "__main__":
    main()
