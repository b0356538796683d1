"""Signing in on the pages with GitHub's web flow, against a stand-in GitHub and a real hub
(httpx): the cookies, each way it can fail (a one-line message on the page, never a 500),
and the forms' CSRF check."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from github_standin import CLIENT_ID, CLIENT_SECRET, GitHub, running_github, web_config
from hub_server import Hub, free_port, make_items, make_payload, running_hub
from sqlalchemy import text

from pytest_req2rank.hub._sessions import COOKIE


@pytest.fixture(scope="module")
def github() -> Iterator[GitHub]:
    with running_github() as running:
        yield running


@pytest.fixture(scope="module")
def web_hub(github: GitHub, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    with running_hub(Path(tmp_path_factory.mktemp("web")), reports_to_hold=1,
                     **web_config(github)) as hub:
        yield hub


def start(client: httpx.Client, next_path: str = "/") -> dict[str, str]:
    """``/auth/github``: the authorize URL's parameters (the redirect checked)."""
    started = client.get("/auth/github", params={"next": next_path})
    assert started.status_code == 303, started.text
    return {key: values[0] for key, values in
            parse_qs(urlsplit(started.headers["location"]).query).items()}


def authorize(github: GitHub, params: dict[str, str], login: str, decision: str = "allow"
              ) -> str:
    """The user's answer on the stand-in's authorize page: the callback URL it sends back."""
    answered = httpx.post(f"{github.url}/login/oauth/authorize", data={
        "redirect_uri": params["redirect_uri"], "state": params["state"], "login": login,
        "decision": decision})
    assert answered.status_code == 302
    return answered.headers["location"]


def sign_in(client: httpx.Client, github: GitHub, login: str) -> httpx.Response:
    return client.get(authorize(github, start(client), login))


def error_of(response: httpx.Response) -> str:
    """The page's one-line error (the page is HTML, not a traceback)."""
    assert response.headers["content-type"].startswith("text/html"), response.text
    before, _, after = response.text.partition('id="error">')
    assert before, response.text
    message = after.split("<", 1)[0]
    assert message and "\n" not in message.strip()
    return message


def test_signing_in_sets_a_session_cookie_kept_hashed_and_signing_out_ends_it(
        web_hub: Hub, github: GitHub) -> None:
    with web_hub.client() as browser:
        params = start(browser, "/models/nobody")
        state_cookie = browser.cookies.get("r2r_oauth_state")
        assert params["client_id"] == CLIENT_ID and params["scope"] == "read:user"
        assert params["redirect_uri"] == f"{web_hub.url}/auth/github/callback"
        assert len(params["state"]) >= 32 and state_cookie == params["state"]
        done = browser.get(authorize(github, params, "web-alice"))
        assert done.status_code == 303 and done.headers["location"] == "/models/nobody"
        set_cookie = next(h for h in done.headers.get_list("set-cookie") if h.startswith(COOKIE))
        assert "HttpOnly" in set_cookie and "SameSite=lax" in set_cookie
        assert "Secure" not in set_cookie and "Path=/" in set_cookie
        assert github.exchanges[-1]["client_secret"] == CLIENT_SECRET
        first_cookie = browser.cookies.get(COOKIE, path="/")
        browser.get(authorize(github, start(browser), "web-alice"))  # again: a new session
        cookie = browser.cookies.get(COOKIE, path="/")
        assert cookie != first_cookie
        assert "Signed in as <strong>web-alice</strong>" in browser.get("/").text
        csrf = browser.get("/signin").text.split('name="csrf_token" value="', 1)[1].split('"')[0]
        out = browser.post("/signout", data={"csrf_token": csrf})
        assert out.status_code == 303 and 'href="/signin' in browser.get("/").text
    with web_hub.app.state.engine.connect() as connection:
        kept = connection.execute(text("SELECT cookie_sha256, ended_at FROM web_sessions")).all()
    assert (hashlib.sha256(cookie.encode()).hexdigest(), ) in [(row[0],) for row in kept]
    assert all(row[1] is not None for row in kept if row[0] ==
               hashlib.sha256(cookie.encode()).hexdigest())
    for ended in (first_cookie, cookie):  # replaced, signed out: neither signs in
        with web_hub.client() as replay:
            replay.cookies.set(COOKIE, ended)
            assert "Signed in as" not in replay.get("/").text


def test_a_callback_whose_state_is_not_this_browsers_is_refused(web_hub: Hub,
                                                                 github: GitHub) -> None:
    with web_hub.client() as browser, web_hub.client() as other:
        callback = authorize(github, start(browser), "web-mallory")
        forged = callback.replace("state=", "state=x")
        mismatch = browser.get(forged)
        elsewhere = other.get(callback)  # a link from another browser: no state cookie
        assert "Signed in as" not in browser.get("/").text
    assert mismatch.status_code == 400 and "state does not match" in error_of(mismatch)
    assert 'r2r_oauth_state=""' in mismatch.headers["set-cookie"]  # the next try starts afresh
    assert elsewhere.status_code == 400 and "sign in again" in error_of(elsewhere)


def test_a_code_github_refuses_or_a_denied_sign_in_is_a_message(web_hub: Hub,
                                                                  github: GitHub) -> None:
    with web_hub.client() as browser:
        params = start(browser)
        bogus = browser.get(f"/auth/github/callback?code=bogus&state={params['state']}")
        callback = authorize(github, start(browser), "web-bob")  # a refusal: start again
        first = browser.get(callback)
        browser.cookies.clear()
        used = parse_qs(urlsplit(callback).query)["code"][0]
        again = browser.get(f"/auth/github/callback?code={used}&state={start(browser)['state']}")
        browser.cookies.clear()
        denied = browser.get(authorize(github, start(browser), "web-bob", decision="deny"))
    assert bogus.status_code == 401
    assert error_of(bogus) == ("GitHub refused the sign-in (The code passed is incorrect or "
                               "expired.); sign in again")
    assert first.status_code == 303
    assert again.status_code == 401 and "incorrect or expired" in error_of(again)
    assert denied.status_code == 401 and "The user has denied" in error_of(denied)


def test_an_unreachable_github_is_a_message(github: GitHub, tmp_path: Path) -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    with running_hub(tmp_path, **{**web_config(github), "github_url": closed}) as hub, \
            hub.client() as browser:
        params = start(browser)
        failed = browser.get(f"/auth/github/callback?code=abc&state={params['state']}")
    assert failed.status_code == 502
    assert error_of(failed).startswith("could not reach GitHub to finish signing in")


def test_forms_need_the_sessions_csrf_token_and_a_sign_in(web_hub: Hub, github: GitHub) -> None:
    with web_hub.client(web_hub.token("web-submitter")) as api:
        submitted = api.post("/api/submissions", json=make_payload(api, model="web/csrf")).json()
    page = f"/submissions/{submitted['id']}"
    with web_hub.client() as anonymous:
        refused = anonymous.post(f"{page}/flags", data={"reason": "looks odd"})
        shown = anonymous.get(page).text
    assert refused.status_code == 401 and error_of(refused) == "sign in to report a submission"
    assert f'href="/signin?next={page}"' in shown
    with web_hub.client() as browser:
        sign_in(browser, github, "web-carol")
        no_token = browser.post(f"{page}/flags", data={"reason": "looks odd"})
        wrong = browser.post(f"{page}/flags", data={"reason": "looks odd", "csrf_token": "x"})
        signout = browser.post("/signout", data={})
        still = browser.get(page).text
        csrf = still.split('name="csrf_token" value="', 1)[1].split('"')[0]
        flagged = browser.post(f"{page}/flags", data={"reason": "looks odd", "csrf_token": csrf})
        empty = browser.post(f"{page}/flags", data={"reason": " ", "csrf_token": csrf})
        resolve = browser.post(f"{page}/flags/1/resolve", data={"action": "dismiss",
                                                                "csrf_token": csrf})
    for response in (no_token, wrong, signout):
        assert response.status_code == 403 and "came from another site" in error_of(response)
    assert "Signed in as <strong>web-carol</strong>" in still
    assert 'id="status">accepted' in still  # the refused forms changed nothing
    assert flagged.status_code == 303
    assert empty.status_code == 422 and "say what looks wrong" in error_of(empty)
    assert resolve.status_code in (403, 404) and error_of(resolve)


def test_an_admin_resolves_reports_from_the_page(web_hub: Hub, github: GitHub) -> None:
    web_hub.token("web-admin", admin=True)
    with web_hub.client(web_hub.token("web-runner")) as api:
        submitted = api.post("/api/submissions", json=make_payload(api, model="web/admin")).json()
    page = f"/submissions/{submitted['id']}"
    with web_hub.client() as reporter:
        sign_in(reporter, github, "web-dave")
        csrf = reporter.get(page).text.split('name="csrf_token" value="', 1)[1].split('"')[0]
        reporter.post(f"{page}/flags", data={"reason": "copied scores", "csrf_token": csrf})
        as_user = reporter.get(page).text
    with web_hub.client(web_hub.token("web-runner")) as api:
        flag_id = api.get(f"/api{page}").json()["reports"][0]["id"]
    with web_hub.client() as admin:
        sign_in(admin, github, "web-admin")
        shown = admin.get(page).text
        csrf = shown.split('name="csrf_token" value="', 1)[1].split('"')[0]
        bad = admin.post(f"{page}/flags/{flag_id}/resolve", data={"action": "ignore",
                                                                  "csrf_token": csrf})
        done = admin.post(f"{page}/flags/{flag_id}/resolve",
                          data={"action": "dismiss", "note": "checked", "csrf_token": csrf})
        after = admin.get(page).text
    assert f"/flags/{flag_id}/resolve" not in as_user and "(admin)" in shown
    assert f"/flags/{flag_id}/resolve" in shown and 'id="status">flagged' in shown
    assert bad.status_code == 422 and "use uphold or dismiss" in error_of(bad)
    assert done.status_code == 303 and 'id="status">accepted' in after
    assert f"report {flag_id} dismissed: checked" in after


def test_a_hub_without_a_github_app_says_how_to_get_a_token(hub: Hub) -> None:
    with hub.client() as browser:
        page = browser.get("/signin")
        start_ = browser.get("/auth/github")
    assert page.status_code == 200 and "no GitHub sign-in for its pages" in page.text
    assert "req2rank-hub token create USER" in page.text
    assert start_.status_code == 404 and "no GitHub sign-in" in error_of(start_)


def test_cookies_are_secure_behind_https_and_next_stays_on_the_hub(
        github: GitHub, tmp_path: Path) -> None:
    with running_hub(tmp_path, public_url="https://hub.example.org", **web_config(github)) as hub, \
            hub.client() as browser:
        started = browser.get("/auth/github", params={"next": "//evil.example.org/x"})
    params = parse_qs(urlsplit(started.headers["location"]).query)
    assert params["redirect_uri"] == ["https://hub.example.org/auth/github/callback"]
    assert "Secure" in started.headers["set-cookie"]
    assert started.headers["set-cookie"].startswith("r2r_oauth_state=")
    assert "%2F%2Fevil" not in started.headers["set-cookie"]


def test_an_admin_reviews_a_submission_the_checks_flagged(web_hub: Hub, github: GitHub) -> None:
    web_hub.token("web-reviewer", admin=True)
    with web_hub.client(web_hub.token("web-perfect")) as api:
        submitted = api.post("/api/submissions", json=make_payload(
            api, model="web/review", items=make_items(scores=[100.0] * 6))).json()
    assert submitted["status"] == "flagged"
    page = f"/submissions/{submitted['id']}"
    with web_hub.client() as user:
        sign_in(user, github, "web-erin")
        shown = user.get(page).text
        csrf = shown.split('name="csrf_token" value="', 1)[1].split('"')[0]
        refused = user.post(f"{page}/review", data={"action": "accept", "csrf_token": csrf})
    with web_hub.client() as admin:
        sign_in(admin, github, "web-reviewer")
        shown_admin = admin.get(page).text
        csrf = shown_admin.split('name="csrf_token" value="', 1)[1].split('"')[0]
        accepted = admin.post(f"{page}/review", data={"action": "accept", "note": "a toy task",
                                                      "csrf_token": csrf})
        after = admin.get(page).text
    assert 'id="review"' not in shown and 'id="review"' in shown_admin
    assert refused.status_code == 403 and error_of(refused) == \
        "web-erin is not an admin of this hub"
    assert accepted.status_code == 303 and 'id="status">accepted' in after
    assert "admin review: a toy task" in after


def test_an_expired_session_signs_no_one_in(web_hub: Hub, github: GitHub) -> None:
    with web_hub.client() as browser:
        sign_in(browser, github, "web-frank")
        assert "Signed in as <strong>web-frank</strong>" in browser.get("/").text
        web_hub.sql("UPDATE web_sessions SET expires_at = :past WHERE user_id = "
                    "(SELECT id FROM users WHERE name = 'web-frank')",
                    past=datetime.now(UTC) - timedelta(seconds=1))
        expired = browser.get("/")
    assert expired.status_code == 200 and "Signed in as" not in expired.text
    assert 'id="signin"' in expired.text
