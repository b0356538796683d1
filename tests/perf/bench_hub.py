"""The hub under load on SQLite and on PostgreSQL: 200 submissions from 20 clients each; and
one big run submitted and re-verified.

Not collected by pytest. Run: ``python tests/perf/bench_hub.py [--clients 20] [--submissions
200] [--items 20] [--reads 1] [--no-postgres]``, or ``--big-run 5000 [--sample 10]`` for the
big run (see :func:`big_run`). For each database it starts a real hub in
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
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

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


JUDGES = ("judge-a", "judge-b", "judge-c")
DIMENSIONS = ("functionality", "quality", "logic", "security", "engineering")
RATIONALE = ("The implementation covers the behaviour the requirement states and the edge cases "
             "it names; names are clear, errors are raised where the requirement says, and the "
             "structure would be easy to extend. Minor: one helper has no docstring, and a "
             "loop could be a comprehension.")


def _judge_script(base: float) -> list[dict[str, Any]]:
    """A scripted LLM judge of the fake provider: scores around ``base``, a rationale as
    long as a real judge's, token counts."""
    return [{"responses": [{
        "text": json.dumps({"scores": {name: base + 3 * i - 6 + (n % 5) for i, name in
                                       enumerate(DIMENSIONS)}, "rationale": RATIONALE}),
        "usage": {"prompt_tokens": 1800, "completion_tokens": 140}} for n in range(9)]}]


def real_shape(directory: Path, seed: int, rounds: int = 8
               ) -> tuple[dict[str, Any], dict[str, str]]:
    """A real offline run (its results document): ``rounds`` requirements the seed draws,
    answered by ``r2r/reference``, graded in the sandbox, judged by three scripted LLM
    judges of the fake provider. The big run's items copy its items' shape."""
    from pytest_req2rank.providers.fake import write_fake_script

    benchmark = Path(__file__).parents[2] / "benchmarks" / "test_benchmark.py"
    directory.mkdir(parents=True)
    (directory / "test_benchmark.py").write_text(benchmark.read_text())
    fake = write_fake_script(directory / "script.json", {"models": {
        name: _judge_script(base) for name, base in zip(JUDGES, (78.0, 84.0, 71.0), strict=True)}})
    env = {**{key: value for key, value in os.environ.items()
              if not key.startswith(("R2R_", "PYTEST_"))}, **fake}
    judges = ",".join(f"fake/{name}" for name in JUDGES)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--rootdir",
         str(directory), "test_benchmark.py", f"--r2r-rounds={rounds}", f"--r2r-seed={seed}",
         f"--r2r-judges={judges}", "--r2r-json=shape.json"],
        cwd=directory, env=env, capture_output=True, text=True, timeout=900, check=False)
    if done.returncode:
        raise RuntimeError(f"the shape run failed: {done.stdout[-2000:]}{done.stderr[-2000:]}")
    return json.loads((directory / "shape.json").read_text()), fake


def big_items(shape: dict[str, Any], count: int, seed: int, start: datetime, end: datetime
              ) -> list[dict[str, Any]]:
    """``count`` items of a dynamic run of ``seed``: each a requirement the seed draws, with
    the prompt the plugin builds, answered with the requirement's reference files (as
    ``r2r/reference`` answers, so grading them again gives what they claim: every probe
    passed), and the rest copied from a real item's shape: the probes' outcome records,
    three judges' verdicts, the panel, usage and timings. Spread from ``start`` to ``end``
    over two workers."""
    from pytest_req2rank.execution._prompts import requirement_messages
    from pytest_req2rank.generation import RequirementSpec, build_requirement, load_templates
    from pytest_req2rank.models import COMPLEXITIES
    from pytest_req2rank.suites import DynamicOptions, load_suite

    templates = {template.id: template for template in load_templates(None)}
    tasks = list(load_suite("dynamic", seed=seed, dynamic=DynamicOptions(rounds=count)))
    step = (end - start) / count
    items = []
    for number, task in enumerate(tasks):
        real = shape["items"][number % len(shape["items"])]
        spec = RequirementSpec.model_validate(task.spec)
        requirement = build_requirement(spec, templates)
        brief = requirement.brief()
        outcome = real["tests"][0]
        begin = start + step * number
        timings = real["timings"]
        finish = begin + timedelta(seconds=timings["total_s"])
        items.append({
            **real, "item_id": task.item_id, "task_id": task.task_id,
            "prompt": requirement_messages(brief)[-1].content, "requirement": brief,
            "response": json.dumps({"files": [{"path": path, "content": content} for
                                              path, content in requirement.reference.items()]}),
            "code": dict(requirement.reference),
            "tests": [{**outcome, "name": probe.name, "status": "success"}
                      for probe in requirement.probes],
            "tests_passed": len(requirement.probes), "tests_total": len(requirement.probes),
            "pass_ratio": 1.0, "status": "success", "reason": None,
            "pass_ratio_by_priority": {probe.priority: 1.0 for probe in requirement.probes},
            "complexity": COMPLEXITIES[requirement.metadata.complexity].code,
            "cluster": hashlib.sha256(spec.key.encode()).hexdigest()[:16],
            "worker": f"gw{number % 2}",
            "started_at": begin.isoformat(timespec="milliseconds"),
            "finished_at": finish.isoformat(timespec="milliseconds"),
        })
    return items


def big_payload(shape: dict[str, Any], items: list[dict[str, Any]], nonce: dict[str, Any],
                start: datetime, end: datetime) -> dict[str, Any]:
    """The submission a client sends: the results document (the real run's header, this
    run's id, seed and rounds; the summary built from the items) and its evidence chain."""
    from pytest_req2rank.evidence import chain_for
    from pytest_req2rank.models import ItemResult
    from pytest_req2rank.report import ResultsDocument, RunInfo, build_summary

    results = [ItemResult.model_validate(item) for item in items]
    header = shape["run"]
    run_id = f"{start:%Y%m%d-%H%M%S}-big{len(items)}"
    wall = (end - start).total_seconds()
    run = RunInfo.model_validate({
        **header, "id": run_id, "seed": nonce["seed"],
        "started_at": start.isoformat(timespec="seconds"),
        "finished_at": end.isoformat(timespec="seconds"),
        "settings": {**header["settings"], "rounds": len(items)}})
    document = ResultsDocument(run=run, summary=build_summary(
        results, planned=len(results), wall_time_s=wall, seed=run.seed), items=results)
    data = document.model_dump(mode="json")
    return {"nonce": nonce["nonce"], "results": data,
            "evidence": chain_for(nonce["nonce"], run_id, nonce["issued_at"], results,
                                  run=data["run"], summary=data["summary"])}


def _peak_rss_mb(pid: int | None) -> float:
    """The peak resident memory of process ``pid`` so far (Linux /proc), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


@dataclass
class BigRun:
    """What one big-run measurement found."""

    items: int
    sent_mb: float = 0.0
    compressed_mb: float = 0.0
    accept_s: float = 0.0
    reverify_s: float = 0.0
    status: str = ""
    verdict: str = ""
    lines: list[str] = field(default_factory=list)


def _submit_and_reverify(hub: Hub, client: Any, shape: dict[str, Any], count: int,
                         env: dict[str, str]) -> BigRun:
    """One run of ``count`` items built from ``shape`` under a fresh nonce (dated back an hour
    in the hub's database, the time the run claims), sent as the client sends it (gzip),
    then re-verified with ``req2rank-hub reverify`` (the hub's own sample)."""
    from pytest_req2rank.draws import nonce_seed
    from pytest_req2rank.plan import declared_settings

    measured = BigRun(count)
    settings = {**shape["run"]["settings"], "rounds": count}
    nonce = client.nonce(shape["run"]["model"], declared_settings("dynamic", settings))
    nonce["seed"] = nonce_seed(nonce["nonce"])
    issued = datetime.now(UTC) - timedelta(hours=1)
    nonce["issued_at"] = issued.isoformat(timespec="milliseconds")
    hub.sql("UPDATE nonces SET issued_at = :at WHERE value = :value", at=issued,
            value=nonce["nonce"])
    start, end = issued + timedelta(seconds=5), datetime.now(UTC) - timedelta(minutes=5)
    payload = big_payload(shape, big_items(shape, count, nonce_seed(nonce["nonce"]), start, end),
                          nonce, start, end)
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    measured.sent_mb, measured.compressed_mb = len(text) / 1e6, len(gzip.compress(text, 6)) / 1e6
    t0 = time.perf_counter()
    reply = client.submit(payload)
    measured.accept_s, measured.status = time.perf_counter() - t0, reply["status"]
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest_req2rank.hub.cli", "--database-url",
         hub.config.database_url, "reverify", str(reply["id"])],
        env={**os.environ, **env, "R2R_HUB_DIR": str(Path(hub.config.key_path).parent)},
        capture_output=True, text=True, check=False)
    measured.reverify_s = time.perf_counter() - t0
    measured.verdict = "verified" if done.returncode == 0 else "not verified"
    measured.lines = done.stdout.strip().splitlines() + ([done.stderr[-2000:]]
                                                         if done.returncode else [])
    return measured


def big_run(count: int, baseline: int = 100, seed: int = 11) -> int:
    """A run of ``count`` dynamic items judged by three LLM judges (the scripted fake
    provider), submitted to ``req2rank-hub serve`` (SQLite) and re-verified; the baseline,
    measured in the same run, is a run of ``baseline`` items re-verified whole (the answers
    replay's sample, ``R2R_HUB_REPLAY_MAX_ITEMS``, is 100 by default: a run that small is
    replayed item by item). Both replays are real: the answers replay grades the drawn
    answers again in the hub's sandbox and asks the three judges again (the hub's
    environment holds the same fake script), the model replay asks the run's model, the
    offline ``r2r/reference``, ``R2R_HUB_REVERIFY_SAMPLE`` items. The runs are built, not
    run (a real 5,000-item run takes hours here): :func:`big_items` from a real 8-item run's
    shape. Prints the document's size, compressed and not, the times to accept and to
    re-verify, the big run's as ratios of the baseline's, and the hub's peak memory; exits
    1 unless both runs are accepted and verified."""
    from pytest_req2rank.submit import HubClient

    with tempfile.TemporaryDirectory() as directory:
        base = Path(directory)
        t0 = time.perf_counter()
        shape, fake = real_shape(base / "shape", seed)
        print(f"real shape run: {len(shape['items'])} items in {time.perf_counter() - t0:.0f} s")
        env = {"R2R_HUB_REVERIFY_MODELS": "r2r/reference,fake/*",
               "R2R_HUB_REPLAY_MAX_ROUNDS": str(max(count, baseline)), **fake}
        os.environ.update(fake)  # the served hub's environment: the judges it asks again
        measured = []
        with hub_process(base / "hub", env=env) as hub, \
                HubClient(hub.url, hub.token("big")) as client:
            for items in (baseline, count):
                run = _submit_and_reverify(hub, client, shape, items, env)
                measured.append(run)
                print(f"{items} items: {run.sent_mb:.1f} MB of JSON "
                      f"({run.sent_mb / items * 1e3:.1f} KB an item), {run.compressed_mb:.2f} MB "
                      f"gzip-compressed ({run.sent_mb / run.compressed_mb:.1f}x); {run.status} in "
                      f"{run.accept_s:.1f} s; re-verified in {run.reverify_s:.0f} s: "
                      f"{run.verdict}")
                for line in run.lines:
                    print(f"  {line}")
            print(f"hub peak memory {_peak_rss_mb(hub.pid):.0f} MB")
    small, big = measured
    print(f"{big.items} items / {small.items} items (the baseline, replayed whole, same run): "
          f"{big.items / small.items:.0f}x the items, {big.compressed_mb / small.compressed_mb:.1f}x "
          f"the compressed size, {big.accept_s / small.accept_s:.1f}x the time to accept, "
          f"{big.reverify_s / small.reverify_s:.2f}x the time to re-verify")
    good = all(run.status in ("accepted", "flagged") and run.verdict == "verified"
               for run in measured)
    return 0 if good else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--submissions", type=int, default=200)
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--reads", type=int, default=1, help="Leaderboard reads per submission")
    parser.add_argument("--no-postgres", action="store_true", help="Measure SQLite only")
    parser.add_argument("--big-run", type=int, metavar="ITEMS",
                        help="Instead: submit and re-verify one run of ITEMS dynamic items with "
                        "three LLM judges")
    parser.add_argument("--baseline", type=int, default=100,
                        help="With --big-run: the items of the baseline run, replayed whole")
    args = parser.parse_args()
    if args.big_run:
        return big_run(args.big_run, args.baseline)
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
