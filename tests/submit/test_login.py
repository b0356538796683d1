"""Signing in with GitHub's device flow: against a stand-in GitHub and a real hub, and each
answer GitHub can give while the user has not entered the code yet."""

from __future__ import annotations

import base64
import json
import re
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
import uvicorn
from fastapi import FastAPI, Header, Request
from fastapi.responses import JSONResponse
from hub_server import Hub, free_port, fresh_nonce, running_hub

from pytest_req2rank.submit import LoginError, login
from pytest_req2rank.submit._login import DEVICE_GRANT
from pytest_req2rank.submit._tokens import stored_token


def _github(answers: list[dict[str, Any]]) -> FastAPI:
    """GitHub's device flow and application token check, answering the polls with
    ``answers`` in turn (the tests fill the list)."""
    app = FastAPI()

    async def form(request: Request) -> dict[str, str]:
        return {key: values[0] for key, values in parse_qs((await request.body()).decode()).items()}

    @app.post("/login/device/code")
    async def device_code(request: Request) -> dict[str, Any]:
        assert await form(request) == {"client_id": "hub-app", "scope": "read:user"}
        return {"device_code": "dev-1", "user_code": "ABCD-1234", "interval": 5,
                "verification_uri": "https://github.example/login/device", "expires_in": 900}

    @app.post("/login/oauth/access_token")
    async def access_token(request: Request) -> dict[str, Any]:
        assert await form(request) == {"client_id": "hub-app", "device_code": "dev-1",
                                       "grant_type": DEVICE_GRANT}
        return answers.pop(0)

    @app.post("/applications/hub-app/token")
    async def check_token(request: Request, authorization: str = Header()) -> Any:
        assert authorization == "Basic " + base64.b64encode(b"hub-app:hub-secret").decode()
        if (await request.json()).get("access_token") != "gho_good":
            return JSONResponse({"message": "Not Found"}, status_code=404)
        return {"app": {"client_id": "hub-app"}, "user": {"login": "octocat", "id": 583231}}

    return app


@pytest.fixture(scope="module")
def github_and_hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Hub, list]]:
    answers: list[dict[str, Any]] = []
    app = _github(answers)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    github = f"http://127.0.0.1:{port}"
    with running_hub(Path(tmp_path_factory.mktemp("login")), github_client_id="hub-app",
                     github_client_secret="hub-secret", github_url=github,
                     github_api_url=github) as hub:
        yield github, hub, answers
    server.should_exit = True
    thread.join(timeout=10)


def test_login_waits_for_the_code_and_keeps_a_hub_token(
        github_and_hub: tuple[str, Hub, list], tmp_path: Path) -> None:
    github, hub, answers = github_and_hub
    answers[:] = [{"error": "authorization_pending"}, {"error": "slow_down", "interval": 10},
                  {"error": "authorization_pending"}, {"access_token": "gho_good"}]
    shown: list[str] = []
    waits: list[float] = []
    token = login(hub.url, device_code_url=f"{github}/login/device/code",
                  token_url=f"{github}/login/oauth/access_token", show=shown.append,
                  sleep=waits.append, config_directory=tmp_path)
    assert shown[0] == "Open https://github.example/login/device and enter the code ABCD-1234"
    assert waits == [5, 5, 10, 10]
    assert stored_token(hub.url, tmp_path) == token
    assert stat.S_IMODE((tmp_path / "hub-tokens.json").stat().st_mode) == 0o600
    with hub.client(token) as client:
        assert fresh_nonce(client)["nonce"]
    assert f"as octocat; token kept in {tmp_path / 'hub-tokens.json'}" in shown[-1]


@pytest.mark.parametrize(("answer", "message"), [
    ({"error": "expired_token"}, "the sign-in code expired before it was entered"),
    ({"error": "access_denied"}, "the sign-in was denied on GitHub"),
    ({"error": "incorrect_client_credentials", "error_description": "bad app"},
     "GitHub refused the sign-in (incorrect_client_credentials: bad app)"),
])
def test_login_stops_on_what_github_refuses(github_and_hub: tuple[str, Hub, list], tmp_path: Path,
                                            answer: dict[str, Any], message: str) -> None:
    github, hub, answers = github_and_hub
    answers[:] = [{"error": "authorization_pending"}, answer]
    with pytest.raises(LoginError, match=re.escape(message)):
        login(hub.url, device_code_url=f"{github}/login/device/code",
              token_url=f"{github}/login/oauth/access_token", show=lambda _: None,
              sleep=lambda _: None, config_directory=tmp_path)
    assert stored_token(hub.url, tmp_path) is None


def test_a_token_github_does_not_know_gets_no_hub_token(
        github_and_hub: tuple[str, Hub, list], tmp_path: Path) -> None:
    github, hub, answers = github_and_hub
    answers[:] = [{"access_token": "gho_forged"}]
    with pytest.raises(LoginError, match="GitHub does not know this token as one issued to "
                       "this hub's app"):
        login(hub.url, device_code_url=f"{github}/login/device/code",
              token_url=f"{github}/login/oauth/access_token", show=lambda _: None,
              sleep=lambda _: None, config_directory=tmp_path)


def test_a_hub_without_github_sign_in_says_how_to_get_a_token(hub: Hub, tmp_path: Path) -> None:
    with pytest.raises(LoginError, match="has no GitHub sign-in configured; ask its admin"):
        login(hub.url, config_directory=tmp_path)


def test_tokens_of_several_hubs_are_kept_side_by_side(tmp_path: Path) -> None:
    from pytest_req2rank.submit._tokens import store_token

    store_token("https://a.example/", "r2r_a", tmp_path)
    store_token("https://b.example", "r2r_b", tmp_path)
    assert stored_token("https://a.example", tmp_path) == "r2r_a"
    assert json.loads((tmp_path / "hub-tokens.json").read_text()) == {
        "https://a.example": "r2r_a", "https://b.example": "r2r_b"}


def test_an_unreachable_github_is_one_clear_error(tmp_path: Path) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    with pytest.raises(LoginError, match="could not ask GitHub for a sign-in code at"):
        login("http://hub.invalid", client_id="x", transport=httpx.MockTransport(refuse),
              config_directory=tmp_path)
