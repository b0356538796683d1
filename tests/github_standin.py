"""A stand-in GitHub for the hub's web sign-in, speaking GitHub's OAuth web flow: the
authorize page (a form: who signs in, allow or deny), ``POST /login/oauth/access_token``
(single-use codes, the app's secret and the redirect URI checked as GitHub does, errors
answered with HTTP 200 and an ``error`` field), ``GET /user`` and the application token
check ``POST /applications/{client_id}/token`` (basic auth with the app's id and secret;
404 for a token it did not issue to that app). Accounts have numeric ids; a login can be
renamed and then taken by a new account (:meth:`GitHub.rename`)."""

from __future__ import annotations

import base64
import html
import itertools
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode

import uvicorn
from fastapi import FastAPI, Header, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from hub_server import free_port

CLIENT_ID = "hub-web-app"
CLIENT_SECRET = "hub-web-secret"
OTHER_APP = "another-app"
"""Another OAuth app, whose tokens GitHub knows but not as the hub's."""

_ids = itertools.count(583231)


@dataclass
class GitHub:
    url: str
    codes: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Code → (login, redirect URI) until it is exchanged."""
    tokens: dict[str, tuple[str, int]] = field(default_factory=dict)
    """Token → (the app it was issued to, the account's id)."""
    exchanges: list[dict[str, str]] = field(default_factory=list)
    accounts: dict[str, int] = field(default_factory=dict)
    """Login → the account's numeric id (made on first use of a login)."""
    checks: list[str] = field(default_factory=list)
    """The client ids of the application token checks asked."""

    def account(self, login: str) -> int:
        if login not in self.accounts:
            self.accounts[login] = next(_ids)
        return self.accounts[login]

    def login_of(self, account_id: int) -> str:
        return next(login for login, known in self.accounts.items() if known == account_id)

    def rename(self, login: str, new_login: str) -> None:
        """Account ``login`` is ``new_login`` from now on; ``login`` is free for another."""
        self.accounts[new_login] = self.accounts.pop(login)

    def token(self, login: str, app: str = CLIENT_ID) -> str:
        """A token issued to ``app`` for account ``login`` (as a finished sign-in gives)."""
        token = "gho_" + secrets.token_hex(12)
        self.tokens[token] = (app, self.account(login))
        return token


def _app(github: GitHub) -> FastAPI:
    app = FastAPI()

    @app.get("/login/oauth/authorize", response_class=HTMLResponse)
    def authorize(client_id: str, redirect_uri: str, state: str, scope: str = "") -> str:
        if client_id != CLIENT_ID:
            return "<!doctype html><title>GitHub</title><p id=error>unknown application</p>"
        fields = "".join(f'<input type="hidden" name="{name}" value="{html.escape(value)}">'
                         for name, value in (("redirect_uri", redirect_uri), ("state", state)))
        return (f'<!doctype html><html><head><title>Authorize · stand-in GitHub</title>'
                f'<link rel="icon" href="data:,"></head><body><h1>Authorize hub-web-app</h1>'
                f'<p>Scope: <code id=scope>{html.escape(scope)}</code></p>'
                f'<form method="post" action="/login/oauth/authorize">{fields}'
                f'<label>Sign in as <input name="login" value="octocat"></label> '
                f'<button name="decision" value="allow" id=allow>Authorize</button> '
                f'<button name="decision" value="deny" id=deny>Cancel</button></form>'
                f'</body></html>')

    @app.post("/login/oauth/authorize")
    async def decide(request: Request) -> RedirectResponse:
        form = {k: v[0] for k, v in parse_qs((await request.body()).decode()).items()}
        if form.get("decision") != "allow":
            query = {"error": "access_denied", "state": form["state"],
                     "error_description": "The user has denied your application access."}
        else:
            code = secrets.token_hex(10)
            github.codes[code] = (form["login"], form["redirect_uri"])
            query = {"code": code, "state": form["state"]}
        return RedirectResponse(f"{form['redirect_uri']}?{urlencode(query)}", status_code=302)

    @app.post("/login/oauth/access_token")
    async def access_token(request: Request, accept: str = Header("")) -> dict[str, str]:
        form = {k: v[0] for k, v in parse_qs((await request.body()).decode()).items()}
        github.exchanges.append(form)
        assert accept == "application/json"
        if form.get("client_id") != CLIENT_ID or form.get("client_secret") != CLIENT_SECRET:
            return {"error": "incorrect_client_credentials",
                    "error_description": "The client_id and/or client_secret passed are incorrect."}
        found = github.codes.pop(form.get("code", ""), None)
        if found is None:
            return {"error": "bad_verification_code",
                    "error_description": "The code passed is incorrect or expired."}
        login, redirect_uri = found
        if form.get("redirect_uri") != redirect_uri:
            return {"error": "redirect_uri_mismatch",
                    "error_description": "The redirect_uri MUST match the registered callback URL."}
        return {"access_token": github.token(login), "token_type": "bearer",
                "scope": "read:user"}

    @app.get("/user")
    def user(authorization: str = Header("")) -> Any:
        found = github.tokens.get(authorization.removeprefix("Bearer "))
        if found is None:
            return JSONResponse({"message": "Bad credentials"}, status_code=401)
        return {"login": github.login_of(found[1]), "id": found[1]}

    @app.post("/applications/{client_id}/token")
    async def check_token(client_id: str, request: Request,
                          authorization: str = Header("")) -> Any:
        github.checks.append(client_id)
        scheme, _, encoded = authorization.partition(" ")
        given = base64.b64decode(encoded).decode() if scheme == "Basic" else ""
        if client_id != CLIENT_ID or given != f"{CLIENT_ID}:{CLIENT_SECRET}":
            return JSONResponse({"message": "Requires authentication"}, status_code=401)
        body = await request.json()
        found = github.tokens.get(str(body.get("access_token", "")))
        if found is None or found[0] != client_id:
            return JSONResponse({"message": "Not Found"}, status_code=404)
        account_id = found[1]
        return {"id": 1, "token": body["access_token"], "scopes": ["read:user"],
                "app": {"client_id": client_id, "name": "req2rank hub", "url": github.url},
                "user": {"login": github.login_of(account_id), "id": account_id,
                         "type": "User"}}

    return app


@contextmanager
def running_github() -> Iterator[GitHub]:
    """The stand-in on 127.0.0.1 at a free port, in a thread."""
    port = free_port()
    github = GitHub(f"http://127.0.0.1:{port}")
    server = uvicorn.Server(uvicorn.Config(_app(github), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the stand-in GitHub did not start")
        time.sleep(0.02)
    try:
        yield github
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def web_config(github: GitHub) -> dict[str, str]:
    """A hub's settings to sign in on this stand-in."""
    return {"github_client_id": CLIENT_ID, "github_client_secret": CLIENT_SECRET,
            "github_url": github.url, "github_api_url": github.url}
