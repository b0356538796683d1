"""A real hub for the tests: Uvicorn on 127.0.0.1 at a free port, in a thread, with its own
SQLite database; and runs to submit to it (synthetic items with their evidence chain)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from pytest_req2rank.draws import nonce_seed
from pytest_req2rank.evidence import chain_for
from pytest_req2rank.hub import HubConfig, create_app, migrate
from pytest_req2rank.judging import PanelConfig, aggregate_verdicts, weighted_overall
from pytest_req2rank.models import (
    DIMENSIONS,
    STATIC_JUDGE,
    ItemResult,
    JudgeVerdict,
    PanelResult,
    Timings,
)
from pytest_req2rank.plan import declared_settings
from pytest_req2rank.report import ResultsDocument, RunInfo, build_summary


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_up(server: Any, probe: Callable[[], object],
                  down: type[Exception]) -> bool:
    """Whether ``probe`` stops raising ``down`` within 60 s while ``server`` (a process) runs;
    if not, the server is killed."""
    deadline = time.monotonic() + 60
    while True:
        try:
            probe()
            return True
        except down:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                return False
            time.sleep(0.05)


def stop(server: Any) -> None:
    """Stop a server process: asked, then killed after 30 s."""
    import subprocess

    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()


@dataclass
class Hub:
    url: str
    config: HubConfig
    app: Any
    pid: int | None = None
    """The hub's process, when it has one of its own (:func:`hub_process`)."""

    def token(self, user: str, *, admin: bool = False) -> str:
        from pytest_req2rank.hub._accounts import create_token

        with self.app.state.sessions() as session:
            return create_token(session, user, admin=admin, config=self.config)

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30.0)

    def sql(self, statement: str, **params: Any) -> None:
        from sqlalchemy import text

        with self.app.state.engine.begin() as connection:
            connection.execute(text(statement), params)

    def verified(self, *submission_ids: int) -> None:
        """Mark submissions verified, as a re-verification that matched would (the
        leaderboard ranks by the verified ones; tests of re-verification itself replay)."""
        for submission_id in submission_ids:
            self.sql("UPDATE submissions SET status = 'verified' WHERE id = :id", id=submission_id)


@contextmanager
def running_hub(directory: Path, **overrides: Any) -> Iterator[Hub]:
    config = replace(HubConfig(database_url=f"sqlite:///{directory / 'hub.db'}",
                               key_path=directory / "key.pem", reverify_every_s=0,
                               submit_rate="10000/minute", daily_nonces=10_000), **overrides)
    migrate(config.database_url)
    app = create_app(config)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the hub did not start")
        time.sleep(0.02)
    try:
        yield Hub(f"http://127.0.0.1:{port}", config, app)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        app.state.engine.dispose()


@contextmanager
def hub_process(directory: Path, database_url: str | None = None, *, args: tuple[str, ...] = (),
                env: dict[str, str] | None = None) -> Iterator[Hub]:
    """A hub served by ``req2rank-hub serve`` in a process of its own on 127.0.0.1, with
    ``R2R_HUB_DIR=directory`` and the settings in ``env`` (re-verification off unless they
    set it: it would ask the runs' models; the per-address submission limit and the daily
    nonces are high unless they set them); ``args`` go after ``serve``. Its output is in
    ``directory/serve.log``."""
    import os
    import subprocess
    import sys
    from types import SimpleNamespace

    from pytest_req2rank.hub._database import make_engine, session_factory

    url = database_url or f"sqlite:///{directory / 'hub.db'}"
    migrate(url)
    port = free_port()
    directory.mkdir(parents=True, exist_ok=True)
    log_path = directory / "serve.log"
    with open(log_path, "ab") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "pytest_req2rank.hub.cli", "--database-url", url, "serve",
             "--port", str(port), *args],
            env={**os.environ, "R2R_HUB_DIR": str(directory), "R2R_HUB_REVERIFY_EVERY": "0",
                 "R2R_HUB_SUBMIT_RATE": "10000/minute", "R2R_HUB_DAILY_NONCES": "10000",
                 **(env or {})},
            stdout=log, stderr=subprocess.STDOUT)
    address = f"http://127.0.0.1:{port}"
    if not wait_until_up(server, lambda: httpx.get(f"{address}/healthz").raise_for_status(),
                         httpx.HTTPError):
        raise RuntimeError(f"the hub did not start: {log_path.read_text()[-800:]}")
    engine = make_engine(url)
    state = SimpleNamespace(engine=engine, sessions=session_factory(engine))
    try:
        yield Hub(address, HubConfig(database_url=url, key_path=directory / "signing-key.pem"),
                  SimpleNamespace(state=state), server.pid)
    finally:
        stop(server)
        engine.dispose()


@pytest.fixture(scope="session")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    """A hub with the default limits, shared by the session (each test uses its own users)."""
    with running_hub(tmp_path_factory.mktemp("hub")) as running:
        yield running


_users = iter(range(1, 1_000_000))


@pytest.fixture
def user(hub: Hub) -> str:
    """A fresh user's token on the session's hub."""
    return hub.token(f"user{next(_users)}")


def _now() -> datetime:
    return datetime.now(UTC)


def _judged(score: float, offsets: dict[str, float], status: str
            ) -> tuple[JudgeVerdict, PanelResult]:
    """The static judge's verdict scoring each dimension ``score + offsets[name]``, and the
    one-judge panel the engine aggregates from it (as the hub recomputes it) under
    :data:`JUDGED_SETTINGS`: its overall is ``score`` plus the weighted offsets."""
    scores = {name: max(0.0, min(100.0, score + offsets.get(name, 0.0))) for name in DIMENSIONS}
    verdict = JudgeVerdict(judge=STATIC_JUDGE, scores=scores, overall=weighted_overall(scores))
    ratio = None if status == "success" else 0.0  # no test outcome listed: the engine's rule
    return verdict, aggregate_verdicts([verdict], ratio, PanelConfig(
        execution_weight=JUDGED_SETTINGS["execution_weight"]))


_answers = iter(range(1, 1_000_000))


def make_items(n: int = 6, *, scores: list[float] | None = None, start: datetime | None = None,
               model: str = "acme/coder", skills: list[list[str]] | None = None,
               dimensions: dict[str, float] | None = None) -> list[ItemResult]:
    """``n`` finished dynamic items, one after the other from ``start`` (default: just now);
    ``skills``: each item's requirement's skills; ``dimensions``: a one-judge panel scores
    each item, each dimension the item's score plus its offset here."""
    scores = scores or [60.0 + 5 * (i % 6) for i in range(n)]
    moment = start or _now() - timedelta(seconds=1)
    answers = next(_answers)  # every run's answers its own (the hub refuses a copy)
    items = []
    for i, score in enumerate(scores):
        begin = moment + timedelta(milliseconds=60 * i)
        end = begin + timedelta(milliseconds=50)
        passed = round(4 * score / 100)
        status = "success" if passed == 4 else "wrong_answer"
        verdict, panel = _judged(score, dimensions, status) if dimensions is not None \
            else (None, None)
        items.append(ItemResult(
            item_id=f"dynamic/R{i}", dataset="dynamic", task_id=f"R{i}", model=model,
            status=status, pass_ratio=passed / 4,
            tests_passed=passed, tests_total=4, prompt=f"Write R{i}",
            response=f"def r{i}(): return {answers}",
            kind="dynamic", score=panel.overall if panel else score, cluster=f"dynamic/R{i}", complexity=f"C{1 + i % 4}",
            requirement={"title": f"R{i}", "metadata": {"skills": skills[i]}} if skills
            else {"title": f"R{i}"},
            panel=panel,
            code={"solution.py": f"def r{i}(): return {answers}"} if dimensions is not None
            else {},
            judges=[verdict] if verdict else [],
            timings=Timings(generation_s=0.01, execution_s=0.02, total_s=0.04),
            started_at=begin.isoformat(timespec="milliseconds"),
            finished_at=end.isoformat(timespec="milliseconds"),
        ))
    return items


SETTINGS = {"concurrency": 2, "judges": []}
"""The synthetic runs' settings: judged by no judge (``--r2r-judges=none``) unless their
items carry the static judge's verdicts (:func:`run_settings`)."""
JUDGED_SETTINGS = {"judges": [STATIC_JUDGE], "execution_weight": 0.0}
"""A synthetic judged run's: the static judge, no hidden-test share in functionality and
logic (its items list no test outcome), so each item's score is its verdict's."""
MODEL = "acme/coder"


def run_settings(items: list[ItemResult]) -> dict[str, Any]:
    """The settings of a synthetic run of ``items``: judged by the static judge when they
    carry its verdicts, else by no judge."""
    return {**SETTINGS, **(JUDGED_SETTINGS if any(item.judges for item in items) else {})}


def make_document(items: list[ItemResult], *, run_id: str = "run-1", seed: int = 7,
                  isolation: str | None = "full", model: str = MODEL) -> ResultsDocument:
    moment = _now()
    settings = run_settings(items)
    return ResultsDocument(
        run=RunInfo(id=run_id, seed=seed, model=model, suite="dynamic",
                    judges=settings["judges"], sandbox="process", isolation=isolation,
                    plugin_version="0",
                    started_at=(moment - timedelta(seconds=2)).isoformat(timespec="seconds"),
                    finished_at=moment.isoformat(timespec="seconds"),
                    settings=settings),
        summary=build_summary(items, planned=len(items), wall_time_s=1.0, seed=seed),
        items=items,
    )


_runs = iter(range(1, 1_000_000))


def refused(response: httpx.Response, status: int, code: str) -> str:
    """The message of a refusal with ``status`` and ``code`` (else the assertion fails)."""
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code, error
    return str(error["message"])


def nonce_request(model: str = MODEL, suite: str = "dynamic",
                  settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """The body of ``POST /api/nonces`` for a run of ``model`` with the synthetic runs'
    settings (or ``settings``)."""
    return {"model": model,
            "settings": declared_settings(suite, SETTINGS if settings is None else settings)}


def fresh_nonce(client: httpx.Client, model: str = MODEL, suite: str = "dynamic",
                settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """A nonce for a run of ``model`` with the synthetic runs' settings (or ``settings``);
    the reply with the ``model`` it was fetched for."""
    response = client.post("/api/nonces", json=nonce_request(model, suite, settings))
    assert response.status_code == 201, response.text
    return {**response.json(), "model": model}


def chained(nonce: dict[str, Any], results: dict[str, Any], items: list[ItemResult]
            ) -> dict[str, Any]:
    """The submission of ``results`` (the results JSON as data) with the chain of ``items``
    under ``nonce``, as a client (modified or not) makes it with the package's evidence API."""
    return {"nonce": nonce["nonce"], "results": results,
            "evidence": chain_for(nonce["nonce"], results["run"]["id"], nonce["issued_at"],
                                  items, run=results["run"], summary=results["summary"])}


def rechain(payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` with its chain made again from its (edited) results, in the same item
    order under the same nonce: what a modified client sends."""
    results = payload["results"]
    by_id = {item["item_id"]: ItemResult.model_validate(item) for item in results["items"]}
    order = [entry["item_id"] for entry in payload["evidence"] if entry["kind"] == "item"]
    items = [by_id[item_id] for item_id in order if item_id in by_id]
    items += [item for item_id, item in by_id.items() if item_id not in order]
    nonce = {"nonce": payload["nonce"], "issued_at": payload["evidence"][0]["issued_at"]}
    return chained(nonce, results, items)


def make_payload(client: httpx.Client, *, items: list[ItemResult] | None = None,
                 nonce: dict[str, Any] | None = None, **document: Any) -> dict[str, Any]:
    """A consistent submission: a fresh nonce (for the run's model), the results of
    ``items`` seeded by the nonce, and their chain."""
    if nonce is not None:
        document.setdefault("model", nonce.get("model", MODEL))
    items = items if items is not None else make_items()
    nonce = nonce or fresh_nonce(client, document.get("model", MODEL),
                                 settings=run_settings(items))
    if "model" in document:  # the items are the run's model's
        items = [item.model_copy(update={"model": document["model"]}) for item in items]
    run_id = document.pop("run_id", f"run-{next(_runs)}")
    document.setdefault("seed", nonce_seed(nonce["nonce"]))
    results = make_document(items, run_id=run_id, **document)
    return chained(nonce, results.model_dump(mode="json"), items)


def _postgres_bin() -> Path | None:
    """PostgreSQL's server binaries: ``$R2R_TEST_PG_BIN``, else Debian's newest."""
    import glob
    import os

    given = os.environ.get("R2R_TEST_PG_BIN")
    found = ([Path(given)] if given else
             [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"))])
    return next((path for path in reversed(found) if (path / "initdb").exists()), None)


class PostgresUnavailable(Exception):
    """No PostgreSQL server could be started here (the message says why)."""


@contextmanager
def postgres_server() -> Iterator[str]:
    """A PostgreSQL server in a temporary directory, yielding its SQLAlchemy URL; as root,
    run as the unprivileged ``nobody`` (initdb and postgres refuse root). Raises
    :class:`PostgresUnavailable` when it cannot be started."""
    import os
    import pwd
    import shutil
    import subprocess
    import tempfile

    binaries = _postgres_bin()
    if binaries is None:
        raise PostgresUnavailable(
            "PostgreSQL is not installed (.ci/postgres.sh installs Debian's postgresql)")
    base = Path(tempfile.mkdtemp(prefix="r2r-pg-"))
    prefix: list[str] = []
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        os.chown(base, nobody.pw_uid, nobody.pw_gid)
        prefix = ["runuser", "-u", "nobody", "--"]
    data = base / "data"
    initdb = subprocess.run([*prefix, str(binaries / "initdb"), "-D", str(data), "-U", "postgres",
                             "--auth=trust", "-E", "UTF8", "--no-sync"],
                            capture_output=True, text=True, check=False)
    if initdb.returncode:
        shutil.rmtree(base, ignore_errors=True)
        raise PostgresUnavailable(f"initdb failed: {initdb.stderr.strip().splitlines()[-1:]}")
    port = free_port()
    with open(base / "server.log", "w") as log:
        server = subprocess.Popen([*prefix, str(binaries / "postgres"), "-D", str(data), "-p",
                                   str(port), "-k", str(base), "-h", "127.0.0.1", "-F",
                                   "-c", "max_connections=200"],
                                  stdout=log, stderr=subprocess.STDOUT)
    url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    import psycopg

    if not wait_until_up(server, lambda: psycopg.connect(
            f"host=127.0.0.1 port={port} user=postgres dbname=postgres").close(),
            psycopg.OperationalError):
        log_text = (base / "server.log").read_text()[-500:]
        shutil.rmtree(base, ignore_errors=True)
        raise RuntimeError(f"PostgreSQL did not start: {log_text}")
    try:
        yield url
    finally:
        stop(server)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL server of this session (:func:`postgres_server`); skips without one."""
    from contextlib import ExitStack

    with ExitStack() as stack:
        try:
            url = stack.enter_context(postgres_server())
        except PostgresUnavailable as exc:
            pytest.skip(str(exc))
        yield url
