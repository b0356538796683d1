"""Submissions of one user arriving at once: the daily limit and single-use nonces hold,
in one hub's threads (SQLite) and across two hub processes sharing PostgreSQL."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hub_server import (  # noqa: F401 - postgres_url: a fixture
    Hub,
    fresh_nonce,
    hub_process,
    make_payload,
    postgres_url,
    refused,
    running_hub,
)


def _at_once(posts: list[tuple[httpx.Client, dict[str, Any]]]) -> list[httpx.Response]:
    """POST every payload to /api/submissions from its own thread, released together."""
    start = threading.Barrier(len(posts))
    answers: list[httpx.Response | None] = [None] * len(posts)

    def post(index: int) -> None:
        client, payload = posts[index]
        start.wait()
        answers[index] = client.post("/api/submissions", json=payload)

    threads = [threading.Thread(target=post, args=(i,)) for i in range(len(posts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert all(answer is not None for answer in answers)
    return answers  # type: ignore[return-value]


@pytest.fixture(scope="module")
def busy_hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    with running_hub(Path(tmp_path_factory.mktemp("busy")), max_open_nonces=20) as hub:
        yield hub


def test_the_daily_limit_holds_for_submissions_at_once(busy_hub: Hub) -> None:
    with busy_hub.client(busy_hub.token("eager")) as client:
        answers = _at_once([(client, make_payload(client)) for _ in range(13)])
        codes = Counter(answer.status_code for answer in answers)
        assert codes == {201: 10, 429: 3}, [answer.text for answer in answers]
        for answer in answers:
            if answer.status_code == 429:
                refused(answer, 429, "daily_limit")


def test_one_nonce_sent_with_several_runs_at_once_is_kept_once(busy_hub: Hub) -> None:
    with busy_hub.client(busy_hub.token("replayer")) as client:
        nonce = fresh_nonce(client)
        answers = _at_once([(client, make_payload(client, nonce=nonce)) for _ in range(6)])
    assert sorted(answer.status_code for answer in answers) == [201] + [409] * 5
    for answer in answers:
        if answer.status_code == 409:
            refused(answer, 409, "nonce_used")


def test_one_run_retried_at_once_is_kept_once(busy_hub: Hub) -> None:
    with busy_hub.client(busy_hub.token("retrier")) as client:
        payload = make_payload(client)
        answers = _at_once([(client, payload) for _ in range(6)])
    assert sorted(answer.status_code for answer in answers) == [200] * 5 + [201]
    assert len({answer.json()["id"] for answer in answers}) == 1


@pytest.mark.slow  # a PostgreSQL server and two hub processes
def test_two_hub_processes_on_one_postgresql_share_the_daily_limit(
        postgres_url: str, tmp_path: Path) -> None:  # noqa: F811
    env = {"R2R_HUB_MAX_OPEN_NONCES": "20", "R2R_HUB_KEY": str(tmp_path / "signing-key.pem")}
    with hub_process(tmp_path / "a", postgres_url, env=env) as first, \
            hub_process(tmp_path / "b", postgres_url, env=env) as second:
        token = first.token("two-hubs")
        with first.client(token) as one, second.client(token) as other:
            clients = [one, other] * 6
            answers = _at_once([(client, make_payload(client)) for client in clients])
            assert Counter(answer.status_code for answer in answers) == {201: 10, 429: 2}
            accepted_by = Counter(clients[i] is one for i, answer in enumerate(answers)
                                  if answer.status_code == 201)
            assert accepted_by[True] and accepted_by[False]  # both hubs kept some
            for client in (one, other):
                refused(client.post("/api/submissions", json=make_payload(client)), 429,
                        "daily_limit")
