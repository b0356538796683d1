"""Attacks on signing in, over HTTP against a served hub and a stand-in GitHub: a login
renamed and re-registered by someone else, a GitHub token of another app, a hub token kept
after it was revoked or expired, a token mint without bound, an OAuth state replayed or
forged, and a ``next`` that leads off-site."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from github_standin import OTHER_APP, GitHub, running_github, web_config
from hub_server import Hub, make_payload, nonce_request, refused, running_hub

from pytest_req2rank.hub.cli import main


@pytest.fixture(scope="module")
def github() -> Iterator[GitHub]:
    with running_github() as running:
        yield running


@pytest.fixture(scope="module")
def hub(github: GitHub, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    with running_hub(Path(tmp_path_factory.mktemp("signin")), max_tokens=3,
                     **web_config(github)) as running:
        yield running


def hub_token(hub: Hub, github_token: str) -> httpx.Response:
    """``req2rank login``'s last step: GitHub's token exchanged for a hub token."""
    with hub.client() as client:
        return client.post("/api/tokens/github", json={"access_token": github_token})


def test_a_renamed_login_taken_by_another_account_is_not_its_user(hub: Hub,
                                                                  github: GitHub) -> None:
    first = hub_token(hub, github.token("ada")).json()
    hub.token("ada", admin=True)  # ada (her GitHub account) is the hub's admin
    with hub.client(first["token"]) as ada:
        submitted = ada.post("/api/submissions", json=make_payload(ada, model="signin/ada"))
    assert submitted.status_code == 201
    github.rename("ada", "ada-lovelace")  # ada renames; mallory registers the free login
    taken = hub_token(hub, github.token("ada")).json()
    back = hub_token(hub, github.token("ada-lovelace")).json()
    with hub.client(taken["token"]) as mallory, hub.client(back["token"]) as ada:
        mallory_admin = mallory.post(f"/api/admin/submissions/{submitted.json()['id']}/review",
                                     json={"action": "remove", "note": "mine now"})
        ada_admin = ada.post(f"/api/admin/submissions/{submitted.json()['id']}/review",
                             json={"action": "accept", "note": "still mine"})
        shown = ada.get(f"/api/submissions/{submitted.json()['id']}").json()
    assert taken["user"] == "ada" and back["user"] == "ada-lovelace"
    refused(mallory_admin, 403, "not_admin")
    assert ada_admin.status_code == 200 and shown["user"] == "ada-lovelace"


def test_a_github_token_of_another_app_or_made_up_gets_no_hub_token(hub: Hub,
                                                                    github: GitHub) -> None:
    asked = len(github.checks)
    other_app = hub_token(hub, github.token("eve", app=OTHER_APP))
    made_up = hub_token(hub, "gho_" + "0" * 24)
    refused(other_app, 401, "github_refused")
    assert "not know this token as one issued to this hub's app" in \
        refused(made_up, 401, "github_refused")
    assert github.checks[asked:] == ["hub-web-app", "hub-web-app"]  # the app's check, twice


def test_a_revoked_token_is_refused_from_the_api_and_the_command_line(hub: Hub) -> None:
    kept, leaked, other = hub.token("rev-bob"), hub.token("rev-bob"), hub.token("rev-bob")
    with hub.client(leaked) as client:
        assert client.delete("/api/tokens/current").json() == {"revoked": 1}
        refused(client.post("/api/nonces", json=nonce_request()), 401, "unauthenticated")
    with hub.client(kept) as client:
        assert client.post("/api/nonces", json=nonce_request()).status_code == 201
        assert client.delete("/api/tokens").json() == {"revoked": 2}  # kept and other
        refused(client.post("/api/nonces", json=nonce_request()), 401, "unauthenticated")
    again = hub.token("rev-bob")
    assert main(["--database-url", hub.config.database_url, "token", "revoke", "rev-bob"]) == 0
    for token in (other, again):
        with hub.client(token) as client:
            refused(client.post("/api/nonces", json=nonce_request()), 401, "unauthenticated")
    assert main(["--database-url", hub.config.database_url, "token", "revoke", "nobody"]) == 2


def test_an_expired_token_is_refused_saying_so(hub: Hub) -> None:
    token, legacy = hub.token("exp-carl"), hub.token("exp-dora")
    past = datetime.now(UTC) - timedelta(seconds=1)
    hub.sql("UPDATE tokens SET expires_at = :past WHERE user_id = (SELECT id FROM users "
            "WHERE name = 'exp-carl')", past=past)
    hub.sql("UPDATE tokens SET expires_at = NULL, created_at = :old WHERE user_id = (SELECT "
            "id FROM users WHERE name = 'exp-dora')",  # a token kept before tokens expired
            old=datetime.now(UTC) - timedelta(seconds=hub.config.token_ttl_s + 1))
    for expired in (token, legacy):
        with hub.client(expired) as client:
            assert "expired at" in refused(client.post("/api/nonces", json=nonce_request()), 401, "token_expired")


def test_minting_tokens_keeps_only_the_newest_in_force(hub: Hub, github: GitHub) -> None:
    minted = [hub_token(hub, github.token("mint-erin")).json()["token"] for _ in range(5)]
    working = []
    for token in minted:
        with hub.client(token) as client:
            working.append(client.post("/api/nonces", json=nonce_request()).status_code == 201)
    assert working == [False, False, True, True, True]  # max_tokens=3


def _callback(hub: Hub, github: GitHub, browser: httpx.Client, next_path: str = "/"
              ) -> str:
    started = browser.get("/auth/github", params={"next": next_path})
    state = parse_qs(urlsplit(started.headers["location"]).query)["state"][0]
    answered = httpx.post(f"{github.url}/login/oauth/authorize", data={
        "redirect_uri": f"{hub.url}/auth/github/callback", "state": state,
        "login": "state-frank", "decision": "allow"})
    return answered.headers["location"]


def test_an_oauth_state_is_used_once_and_only_one_the_hub_issued(hub: Hub,
                                                                 github: GitHub) -> None:
    with hub.client() as browser:
        callback = _callback(hub, github, browser)
        state = parse_qs(urlsplit(callback).query)["state"][0]
        first = browser.get(callback)
        browser.cookies.set("r2r_oauth_state", state, path="/auth/github")  # replayed whole
        again = browser.get(callback.replace("code=", "code=x"))
    with hub.client() as forger, hub.client() as elsewhere:
        code = parse_qs(urlsplit(_callback(hub, github, elsewhere)).query)["code"][0]
        # a state of the forger's own, in the cookie and the URL alike
        forger.cookies.set("r2r_oauth_state", "forged-state", path="/auth/github")
        forged = forger.get(f"/auth/github/callback?code={code}&state=forged-state")
    assert first.status_code == 303
    assert again.status_code == 400 and "a state is used once" in again.text
    assert forged.status_code == 400 and "Signed in as" not in forged.text


@pytest.mark.parametrize("next_path", [
    "/%09/evil.example", "//evil.example", "/\\evil.example", "/\t/evil.example",
    "https://evil.example/", "/\n/evil.example", "\\\\evil.example", "/ /evil.example",
    "/\u3000/evil.example", "javascript:alert(1)",
])
def test_next_leads_only_to_a_plain_path_of_the_hub(hub: Hub, github: GitHub,
                                                    next_path: str) -> None:
    from urllib.parse import unquote

    with hub.client() as browser:
        page = browser.get("/signin", params={"next": unquote(next_path)}).text
        done = browser.get(_callback(hub, github, browser, unquote(next_path)))
    assert done.status_code == 303 and done.headers["location"] == "/"
    assert 'href="/auth/github?next=/"' in page


def test_next_keeps_a_plain_path_of_the_hub(hub: Hub, github: GitHub) -> None:
    with hub.client() as browser:
        done = browser.get(_callback(hub, github, browser, "/models/acme/coder?x=%2F1"))
    assert done.headers["location"] == "/models/acme/coder?x=%2F1"
