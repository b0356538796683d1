"""Attacks on moderation, over HTTP against a served hub: one user reporting a rival's run
again and again (or twice at once) to take it off the board, a user filing reports without
end, and a dismissal that used to hand a verified run back as merely accepted."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hub_server import Hub, make_payload, refused, running_hub

from pytest_req2rank.hub._moderation import MAX_NOTE_CHARS


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    with running_hub(Path(tmp_path_factory.mktemp("moderation")), daily_reports=4) as running:
        yield running


def _ranked(hub: Hub, model: str) -> dict | None:
    with hub.client() as client:
        rows = client.get("/api/leaderboard").json()["rows"]
    return next((row for row in rows if row["model"] == model), None)


def _submitted(hub: Hub, model: str) -> int:
    with hub.client(hub.token(f"owner-{model}")) as client:
        reply = client.post("/api/submissions", json=make_payload(client, model=model))
    assert reply.status_code == 201, reply.text
    return int(reply.json()["id"])


def test_one_user_reporting_a_run_21_times_files_one_report_and_it_stays_ranked(
        hub: Hub) -> None:
    target = _submitted(hub, "mod/rival")
    with hub.client(hub.token("mod-mallory")) as mallory:
        replies = [mallory.post(f"/api/submissions/{target}/flags", json={"reason": f"fake {n}"})
                   for n in range(21)]
    assert replies[0].status_code == 201 and replies[0].json()["open_reports"] == 1
    for reply in replies[1:]:
        assert "open already" in refused(reply, 409, "already_reported")
    assert _ranked(hub, "mod/rival")["status"] == "accepted"


def test_the_same_report_sent_twice_at_once_is_kept_once(hub: Hub) -> None:
    target = _submitted(hub, "mod/race")
    token = hub.token("mod-racer")

    def report(_: int) -> int:
        with hub.client(token) as client:
            return client.post(f"/api/submissions/{target}/flags",
                               json={"reason": "at once"}).status_code

    for _attempt in range(3):  # the index holds whichever request the database takes first
        with ThreadPoolExecutor(4) as pool:
            codes = sorted(pool.map(report, range(4)))
        assert codes.count(201) <= 1 and set(codes) <= {201, 409}
    with hub.client() as client:
        reports = client.get(f"/api/submissions/{target}").json()["reports"]
    assert len(reports) == 1


def test_a_user_files_a_few_reports_a_day(hub: Hub) -> None:
    targets = [_submitted(hub, f"mod/daily{n}") for n in range(5)]
    with hub.client(hub.token("mod-spammer")) as spammer:
        replies = [spammer.post(f"/api/submissions/{target}/flags", json={"reason": "spam"})
                   for target in targets]
    assert [reply.status_code for reply in replies[:4]] == [201] * 4
    assert "filed 4 reports today" in refused(replies[4], 429, "report_limit")


def test_three_users_take_a_run_out_and_a_dismissal_gives_back_verified(hub: Hub) -> None:
    target = _submitted(hub, "mod/verified")
    hub.sql("UPDATE submissions SET status = 'verified' WHERE id = :id", id=target)
    flags = []
    for n in range(hub.config.reports_to_hold):
        with hub.client(hub.token(f"mod-reporter{n}")) as client:
            flags.append(client.post(f"/api/submissions/{target}/flags",
                                     json={"reason": "looks off"}).json())
        held = _ranked(hub, "mod/verified")
        assert (held is None) == (n + 1 == hub.config.reports_to_hold)
    with hub.client(hub.token("mod-admin", admin=True)) as admin:
        back = admin.post(f"/api/admin/flags/{flags[0]['id']}/resolve",
                          json={"action": "dismiss", "note": "the evidence holds"}).json()
    assert [flag["status"] for flag in flags] == ["verified", "verified", "flagged"]
    assert back["status"] == "verified" and back["history"][-1]["actor"] == "mod-admin"
    assert _ranked(hub, "mod/verified")["status"] == "verified"


def test_an_admins_note_is_bounded_and_a_refused_one_resolves_nothing(hub: Hub) -> None:
    target = _submitted(hub, "mod/noted")
    with hub.client(hub.token("mod-noted-reporter")) as reporter:
        flag = reporter.post(f"/api/submissions/{target}/flags", json={"reason": "odd"}).json()
    with hub.client(hub.token("mod-verbose-admin", admin=True)) as admin:
        long_note = "x" * (MAX_NOTE_CHARS + 1)
        for path, action in ((f"/api/admin/flags/{flag['id']}/resolve", "dismiss"),
                             (f"/api/admin/submissions/{target}/review", "remove")):
            message = refused(admin.post(path, json={"action": action, "note": long_note}),
                              422, "invalid_note")
            assert f"{MAX_NOTE_CHARS + 1} characters, more than the {MAX_NOTE_CHARS}" in message
        details = admin.get(f"/api/submissions/{target}").json()
        assert details["status"] == "accepted" and len(details["history"]) == 1
        assert [report["resolution"] for report in details["reports"]] == [None]
        done = admin.post(f"/api/admin/flags/{flag['id']}/resolve",
                          json={"action": "dismiss", "note": "y" * MAX_NOTE_CHARS})
    assert done.status_code == 200, done.text
