"""Submissions of one user arriving at once: the daily limit and single-use nonces hold,
in one hub's threads (SQLite) and across two hub processes sharing PostgreSQL."""

from __future__ import annotations

import itertools
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

_fresh = itertools.count(1)
"""A number for each test's own user: a test repeated in one session on the same hub (as
under load, 50 times) meets no daily limit its earlier rounds used up."""


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
    with busy_hub.client(busy_hub.token(f"retrier-{next(_fresh)}")) as client:
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



@pytest.mark.slow  # a PostgreSQL server and two hub processes
def test_one_run_retried_at_once_on_two_hub_processes_is_kept_once(
        postgres_url: str, tmp_path: Path) -> None:  # noqa: F811
    env = {"R2R_HUB_KEY": str(tmp_path / "signing-key.pem")}
    with hub_process(tmp_path / "a", postgres_url, env=env) as first, \
            hub_process(tmp_path / "b", postgres_url, env=env) as second:
        token = first.token(f"retrier-on-two-hubs-{next(_fresh)}")
        with first.client(token) as one, second.client(token) as other:
            payload = make_payload(one)
            answers = _at_once([(client, payload) for client in [one, other] * 3])
    assert sorted(answer.status_code for answer in answers) == [200] * 5 + [201], \
        [answer.text for answer in answers]
    assert len({answer.json()["id"] for answer in answers}) == 1

# Where a re-send can be while the first request keeps the run: after its first look for a
# kept submission (inside the daily-limit check that follows it), or verifying the run.
MOMENTS = ("check_daily_limit", "check_aggregates")


@pytest.fixture(scope="module",
                params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def hub_on(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    """A hub in this process (its steps can be interleaved) on SQLite and on PostgreSQL; a
    user's first kept run reaches the daily limit, so a request that comes second by that one
    is not taken for a new run."""
    directory = Path(tmp_path_factory.mktemp(f"interleaved-{request.param}"))
    url = (f"sqlite:///{directory / 'hub.db'}" if request.param == "sqlite"
           else request.getfixturevalue("postgres_url"))
    with running_hub(directory, database_url=url, daily_submissions=1) as hub:
        yield hub


def _while_at(moment: str, first: Any, monkeypatch: pytest.MonkeyPatch) -> list[httpx.Response]:
    """Run ``first()`` (a request) inside the next call of the intake's step ``moment``, as if
    it had overtaken the request that is there; returns its answer once made."""
    from pytest_req2rank.hub import _submissions

    step = getattr(_submissions, moment)
    overtaken: list[httpx.Response] = []

    def interleaved(*args: Any, **kwargs: Any) -> Any:
        if not overtaken:
            overtaken.append(httpx.Response(0))  # the first request's own steps run as usual
            overtaken[0] = first()
        return step(*args, **kwargs)

    monkeypatch.setattr(_submissions, moment, interleaved)
    return overtaken


def _refusals(hub: Hub, user: str) -> int:
    from sqlalchemy import text

    with hub.app.state.engine.connect() as connection:
        return int(connection.execute(text(
            "SELECT count(*) FROM refusals JOIN users ON users.id = refusals.user_id "
            "WHERE users.name = :user"), {"user": user}).scalar_one())


@pytest.mark.parametrize("moment", MOMENTS)
def test_a_resend_overtaken_by_the_first_request_gets_its_answer(
        hub_on: Hub, moment: str, monkeypatch: pytest.MonkeyPatch) -> None:
    user = f"resender-{moment}-{next(_fresh)}"
    with hub_on.client(hub_on.token(user)) as client:
        payload = make_payload(client)
        first = _while_at(moment, lambda: client.post("/api/submissions", json=payload),
                          monkeypatch)
        resent = client.post("/api/submissions", json=payload)
    assert first[0].status_code == 201, first[0].text
    assert resent.status_code == 200, resent.text
    assert resent.json()["id"] == first[0].json()["id"]
    assert resent.json()["receipt"] == first[0].json()["receipt"]
    assert _refusals(hub_on, user) == 0, "a re-send was logged as refused"


@pytest.mark.parametrize("moment", MOMENTS)
def test_another_run_overtaken_by_the_first_with_its_nonce_is_refused(
        hub_on: Hub, moment: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with hub_on.client(hub_on.token(f"replayer-{moment}")) as client:
        nonce = fresh_nonce(client)
        kept, other = make_payload(client, nonce=nonce), make_payload(client, nonce=nonce)
        first = _while_at(moment, lambda: client.post("/api/submissions", json=kept),
                          monkeypatch)
        replay = client.post("/api/submissions", json=other)
    assert first[0].status_code == 201, first[0].text
    refused(replay, 409, "nonce_used")
