"""What a modified client does to a hub, with the package's own evidence API: results
invented or edited, their aggregates rebuilt and their chain recomputed (``chain_for``,
closed by the run entry) under a nonce the hub issued for the run's declared model and
settings, seeded by it; and an attacker's HTTP server on loopback that records every
request reaching it."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
from hub_server import chained, fresh_nonce, make_document, make_items, run_settings

from pytest_req2rank.draws import nonce_seed
from pytest_req2rank.judging import PanelConfig, aggregate_verdicts, weighted_overall
from pytest_req2rank.models import DIMENSIONS, ItemResult, JudgeVerdict, NVersionRecord
from pytest_req2rank.report import build_summary
from pytest_req2rank.suites import DynamicOptions, load_suite

_runs = iter(range(1, 1_000_000))

SCHEDULE = {"R2R_HUB_REVERIFY_EVERY": "1", "R2R_HUB_PUBLIC_RATE": "6000/minute"}
"""A served hub (``hub_server.hub_process``) that re-verifies every second and lets the
tests read its pages as often as they poll them."""


def forged(client: httpx.Client, items: list[ItemResult] | None = None, *, model: str,
           suite: str = "dynamic", drawn: int | None = None, **settings: Any) -> dict[str, Any]:
    """A submission a modified client sends: ``items`` (default: six invented ones; with
    ``drawn``, invented answers to the first ``drawn`` tasks the nonce's seed draws from
    ``suite``) as a run of ``model`` with ``settings``, scores rebuilt and chained under a
    fresh nonce that declared them, seeded by it. The items show what the settings say (a
    generator's provenance, N-version records, the suite's kind), as the hub requires."""
    declared = {**run_settings(items or []), **settings}
    nonce = fresh_nonce(client, model, suite, settings=declared)
    seed = nonce_seed(nonce["nonce"])
    if drawn is not None:
        items = drawn_items(seed, drawn, suite=suite)
    items = [_shown(item.model_copy(update={"model": model}), suite, index, declared)
             for index, item in enumerate(items or make_items())]
    run_id = f"forged-{next(_runs)}"
    document = make_document(items, run_id=run_id, seed=seed, model=model)
    run = document.run.model_copy(update={"suite": suite, "settings": declared,
                                          "judges": list(declared["judges"])})
    document = document.model_copy(update={"run": run, "summary": build_summary(
        items, planned=len(items), wall_time_s=1.0, seed=seed)})
    return chained(nonce, document.model_dump(mode="json"), items)


def _shown(item: ItemResult, suite: str, index: int, settings: dict[str, Any]) -> ItemResult:
    """``item`` as a run of ``settings`` on ``suite`` makes it."""
    update: dict[str, Any] = {}
    if settings.get("generator"):
        update["provenance"] = {"source": "generator", "generator": settings["generator"]}
    if settings.get("nversion"):
        update["nversion"] = NVersionRecord(role="version", task=f"nversion/{item.task_id}",
                                            versions=int(settings["nversion"]),
                                            version=index % int(settings["nversion"]))
    elif suite == "humaneval":  # a static item is scored solved or not
        update.update(kind="static", score=100.0 if item.accepted else 0.0)
    return item.model_copy(update=update)


def judged_by(item: ItemResult, judge: str, score: float) -> ItemResult:
    """``item`` judged by ``judge`` giving ``score`` on every dimension, its panel and score
    recomputed from that verdict as the engine would: a forgery the hub cannot refuse."""
    scores = dict.fromkeys(DIMENSIONS, score)
    verdicts = [JudgeVerdict(judge=judge, scores=scores, overall=weighted_overall(scores))]
    ratio = item.panel.execution_ratio if item.panel else (
        None if item.status == "success" else 0.0)
    weight = item.panel.execution_weight if item.panel else 0.7
    panel = aggregate_verdicts(verdicts, ratio, PanelConfig(execution_weight=weight))
    return item.model_copy(update={"judges": verdicts, "panel": panel, "score": panel.overall,
                                   "code": item.code or {"solution.py": item.response}})


def drawn_items(seed: int, count: int, *, suite: str = "dynamic",
                scores: list[float] | None = None) -> list[ItemResult]:
    """Invented items under the ids of the first ``count`` tasks ``suite`` holds for ``seed``
    (so a replay plans and selects them), with made-up answers."""
    tasks = list(load_suite(suite, seed=seed, dynamic=DynamicOptions(rounds=count)))[:count]
    items = make_items(len(tasks), scores=scores)
    return [item.model_copy(update={"item_id": task.item_id, "task_id": task.task_id,
                                    "dataset": task.dataset, "cluster": task.item_id})
            for item, task in zip(items, tasks, strict=True)]


def wait_for(client: httpx.Client, submission: int, done: Callable[[dict[str, Any]], bool], *,
             timeout_s: float = 300.0) -> dict[str, Any]:
    """The submission's details once ``done`` says so (the served hub re-verifies on its
    schedule); the test fails when that takes longer than ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        details: dict[str, Any] = client.get(f"/api/submissions/{submission}").json()
        if done(details):
            return details
        assert time.monotonic() < deadline, f"submission {submission} still: {details['status']}"
        time.sleep(0.5)


@dataclass
class Received:
    method: str
    path: str
    body: str


@dataclass
class AttackerServer:
    """An HTTP server on 127.0.0.1 answering every request as an OpenAI-compatible chat API
    would (``status`` and ``body``), recording each one in ``received``."""

    status: int = 200
    body: dict[str, Any] = field(default_factory=lambda: {
        "id": "x", "object": "chat.completion", "created": 0, "model": "x",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "def solution():\n    pass"}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
    received: list[Received] = field(default_factory=list)
    url: str = ""

    @contextmanager
    def serving(self) -> Iterator[AttackerServer]:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                owner.received.append(Received(self.command, self.path,
                                               self.rfile.read(length).decode(errors="replace")))
                payload = json.dumps(owner.body).encode()
                self.send_response(owner.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = _answer

            def log_message(self, *_args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            server.shutdown()
            server.server_close()
            thread.join(timeout=10)
