"""The hub's pages in a real browser (Debian's chromium driven by Playwright), signed in
through a stand-in GitHub: the leaderboard's filters and sorts with their CIs drawn, the
model's history, a submission's evidence, signing in, reporting, an admin's resolution,
signing out. No page logs an error or has a request fail; each page is screenshotted at a
desktop and a phone viewport as a test artifact (``R2R_TEST_ARTIFACTS``, default
``.req2rank/test-artifacts/hub/``)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from github_standin import GitHub, running_github, web_config
from hub_server import Hub, make_items, make_payload, running_hub

from pytest_req2rank.hub.cli import main

pytestmark = pytest.mark.slow  # a browser start

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
SKILLS = [["math"]] * 3 + [["strings"]] * 3


@pytest.fixture(scope="module")
def artifacts(pytestconfig: pytest.Config) -> Path:
    directory = Path(os.environ.get("R2R_TEST_ARTIFACTS") or
                     pytestconfig.rootpath / ".req2rank" / "test-artifacts") / "hub"
    directory.mkdir(parents=True, exist_ok=True)
    return directory


@pytest.fixture(scope="module")
def github() -> Iterator[GitHub]:
    with running_github() as running:
        yield running


@pytest.fixture(scope="module")
def site(github: GitHub, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    """A hub signing in on the stand-in GitHub, with verified runs of three models:
    browser/high (two runs: strong at math, weak at strings), browser/low (one run: the
    reverse, better judged on quality; and one flagged), browser/c2 (every item of
    complexity C2). One report holds a run here."""
    with running_hub(Path(tmp_path_factory.mktemp("browser")), reports_to_hold=1,
                     **web_config(github)) as hub:
        # An item's score is its panel's: quality (25 %) -10 takes 2.5 points, +20 adds 5.
        runs = [("browser/high", [92.5, 94.5, 96.5, 52.5, 54.5, 56.5], {"quality": -10.0}, None),
                ("browser/high", [82.5, 84.5, 86.5, 42.5, 44.5, 46.5], {"quality": -10.0}, None),
                ("browser/low", [35.0, 40.0, 45.0, 75.0, 80.0, 85.0], {"quality": 20.0}, None),
                ("browser/low", [100.0] * 6, {}, None),
                ("browser/c2", [66.0, 68.0, 70.0, 72.0, 74.0, 76.0], {}, "C2")]
        for number, (model, scores, offsets, complexity) in enumerate(runs):
            items = make_items(scores=scores, skills=SKILLS, dimensions=offsets)
            if complexity:
                items = [item.model_copy(update={"complexity": complexity}) for item in items]
            with hub.client(hub.token(f"runner{number}")) as client:
                response = client.post("/api/submissions",
                                       json=make_payload(client, model=model, items=items))
                assert response.status_code == 201, response.text
                if response.json()["status"] == "accepted":
                    hub.verified(response.json()["id"])
        hub.token("browser-admin", admin=True)
        yield hub


class Visit:
    """A browser context (its own cookies) with everything its pages logged or failed."""

    def __init__(self, browser: Any, artifacts: Path) -> None:
        self.context = browser.new_context(viewport=DESKTOP)
        self.page = self.context.new_page()
        self.artifacts = artifacts
        self.problems: list[str] = []
        self.page.on("console", lambda m: self.problems.append(f"console {m.type}: {m.text}")
                     if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("requestfailed", lambda r: self.problems.append(
            f"request failed: {r.url} ({r.failure})"))
        self.page.on("response", lambda r: self.problems.append(
            f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
        self.shots: list[Path] = []

    def shoot(self, name: str) -> None:
        """The page as it is, full length, at the desktop and the phone viewport."""
        for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            self.page.set_viewport_size(viewport)
            path = self.artifacts / f"{name}-{label}.png"
            self.page.screenshot(path=str(path), full_page=True)
            assert path.stat().st_size > 1000
            self.shots.append(path)
        self.page.set_viewport_size(DESKTOP)

    def models(self) -> list[str]:
        return self.page.locator("#leaderboard tbody tr[data-model]").evaluate_all(
            "rows => rows.map(r => r.dataset.model)")

    def show(self, **choices: str) -> None:
        """The leaderboard's form, filled in and sent."""
        for name, value in choices.items():
            if name == "suite":
                self.page.fill("input[name=suite]", value)
            else:
                self.page.select_option(f"select[name={name}]", value)
        self.page.click("form.filters button[type=submit]")
        self.page.wait_for_load_state()

    def sign_in(self, github: GitHub, login: str) -> None:
        """Sign in from the current page's header through the stand-in GitHub."""
        self.page.click("#signin")
        self.page.wait_for_url("**/signin?next=**")
        self.page.click("#github")
        self.page.wait_for_url(f"{github.url}/login/oauth/authorize?**")
        self.page.fill("input[name=login]", login)
        self.page.click("#allow")
        self.page.wait_for_selector("#who strong")
        assert self.page.locator("#who strong").inner_text() == login

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def visit(browser: Any, artifacts: Path) -> Iterator[Any]:
    opened: list[Visit] = []

    def open_() -> Visit:
        opened.append(Visit(browser, artifacts))
        return opened[-1]

    yield open_
    for visit_ in opened:
        visit_.close()
    problems = [problem for visit_ in opened for problem in visit_.problems]
    assert problems == [], problems


def test_the_leaderboard_filters_and_sorts_with_every_ci_drawn(site: Hub, visit: Any) -> None:
    v = visit()
    v.page.goto(f"{site.url}/")
    assert v.models() == ["browser/c2", "browser/high", "browser/low"]  # pooled: 71, 67, 65
    for row in v.page.locator("#leaderboard tbody tr[data-model]").all():
        bar = row.locator(".ci .range")
        assert bar.count() == 1 and bar.bounding_box()["width"] > 0
    high = v.page.locator('tr[data-model="browser/high"]')
    assert high.locator("td.wide").first.inner_text() == "72.00"  # its best run: shown only
    low = v.page.locator('tr[data-model="browser/low"]')
    assert low.locator(".badge.verified").count() == 1
    assert low.locator(".badge.held").inner_text() == "+1 flagged"
    v.shoot("leaderboard")
    v.show(skill="strings")
    assert v.models() == ["browser/low", "browser/c2", "browser/high"]
    # 80, 85, 90 less what quality lost to its cap at 100 (5 points of one item, a quarter)
    assert v.page.locator('tr[data-model="browser/low"] .score').inner_text() == "84.60"
    v.show(skill="math")
    assert v.models() == ["browser/high", "browser/c2", "browser/low"]
    v.show(skill="", dimension="quality")
    assert v.models()[0] == "browser/low"  # each dimension capped at 100
    assert v.page.locator('tr[data-model="browser/low"] .score').inner_text() == "79.17"
    v.shoot("leaderboard-quality")
    v.show(dimension="", sort="count")
    assert v.models()[0] == "browser/high"
    assert v.page.locator('tr[data-model="browser/high"] .count').inner_text() == "2"
    v.show(sort="model")
    assert v.models() == sorted(v.models())
    v.show(sort="ci_width")
    widths = [float(w) for w in v.page.locator("#leaderboard tbody td.ci-width")
              .all_inner_texts()]
    assert widths == sorted(widths)
    v.show(sort="score", complexity="C2")
    assert v.models() == ["browser/c2"]
    v.show(complexity="mixed")
    assert sorted(v.models()) == ["browser/high", "browser/low"]
    v.show(complexity="", suite="humaneval")
    assert v.models() == [] and "with these filters" in v.page.locator("#leaderboard").inner_text()
    v.show(suite="dynamic")
    assert len(v.models()) == 3
    assert "suite=dynamic" in v.page.url and "sort=score" in v.page.url


def test_the_model_page_draws_the_history_and_links_the_submissions(site: Hub, visit: Any
                                                                      ) -> None:
    v = visit()
    v.page.goto(f"{site.url}/")
    v.page.click('tr[data-model="browser/high"] a')
    v.page.wait_for_url("**/models/browser/high")
    line = v.page.locator("#history polyline.line")
    assert line.bounding_box()["width"] > 100
    assert v.page.locator("#history polygon.band").bounding_box()["height"] > 0
    assert v.page.locator("#history circle").count() == 2
    assert v.page.locator("#submissions .badge.verified").count() == 2
    assert v.page.locator("#attempts tr[data-user]").count() == 2
    v.shoot("model")
    v.page.goto(f"{site.url}/models/browser/low")
    assert v.page.locator("#history circle.flagged").count() == 1
    assert v.page.locator("#submissions .badge.flagged").count() == 1


def test_the_submission_page_shows_its_scores_items_and_evidence(site: Hub, visit: Any) -> None:
    v = visit()
    v.page.goto(f"{site.url}/models/browser/high")
    v.page.locator("#submissions a").first.click()
    v.page.wait_for_url("**/submissions/*")
    submission_id = v.page.url.rsplit("/", 1)[1]
    with site.client() as client:
        evidence = client.get(f"/api/submissions/{submission_id}/evidence").json()["evidence"]
    assert v.page.locator("#status").inner_text() == "verified"
    assert v.page.locator("#items tbody tr").count() == 6
    assert "over 6 items" in v.page.locator("main").inner_text()
    assert v.page.locator("#dimensions tr[data-dimension] .ci .range").count() == 5
    assert v.page.locator('#skills tr[data-skill="math"] .ci .range').bounding_box()["width"] > 0
    assert v.page.locator("#entries").inner_text() == str(len(evidence))
    assert v.page.locator("#head").inner_text() == evidence[-1]["hash"]
    assert "Not re-verified yet" in v.page.locator("#reverify").inner_text()
    assert v.page.locator("#flag").count() == 0  # signed out: a sign-in link instead
    assert "Sign in to report this submission." in v.page.locator("main").inner_text()
    v.shoot("submission")
    v.page.click("#evidence-link")
    v.page.wait_for_url(f"**/api/submissions/{submission_id}/evidence")
    assert evidence[-1]["hash"] in v.page.content()


def test_sign_in_report_resolve_and_sign_out(site: Hub, github: GitHub, visit: Any) -> None:
    # A run of its own, so the other tests' models stay as the fixture made them.
    with site.client(site.token("browser-reported-runner")) as client:
        response = client.post("/api/submissions", json=make_payload(
            client, model="browser/reported", items=make_items(scores=[70.0, 75.0] * 3)))
        assert response.status_code == 201, response.text
    target = response.json()["id"]
    page_url = f"{site.url}/submissions/{target}"

    user = visit()
    user.page.goto(f"{site.url}/signin")
    assert user.page.locator("#github").inner_text() == "Sign in with GitHub"
    user.shoot("signin")
    user.page.goto(page_url)
    assert user.page.locator("#flag").count() == 0
    user.sign_in(github, "browser-carol")
    assert user.page.url == page_url
    user.page.fill("#flag input[name=reason]", "scores too even for this model")
    user.shoot("submission-signed-in")
    user.page.click("#flag button[type=submit]")
    user.page.wait_for_url(f"{page_url}#reports")
    assert user.page.locator("#status").inner_text() == "flagged"
    assert user.page.locator("#report-list li .resolution").inner_text() == "open"
    assert user.page.locator("#report-list form").count() == 0  # not an admin
    user.page.click("#signout")
    user.page.wait_for_url(f"{site.url}/")
    assert user.page.locator("#signin").count() == 1
    user.page.goto(page_url)
    assert user.page.locator("#flag").count() == 0

    admin = visit()
    admin.page.goto(page_url)
    admin.sign_in(github, "browser-admin")
    assert "(admin)" in admin.page.locator("#who").inner_text()
    resolve = admin.page.locator("#report-list li form")
    resolve.locator("input[name=note]").fill("looked at the items: fine")
    admin.shoot("submission-admin")
    resolve.locator('button[value="dismiss"]').click()
    admin.page.wait_for_url(f"{page_url}#reports")
    assert admin.page.locator("#status").inner_text() == "accepted"
    assert admin.page.locator("#report-list li .resolution").inner_text() == "dismiss"
    history = admin.page.locator("#history").inner_text()
    assert "browser-admin" in history and "looked at the items: fine" in history
    admin.page.fill("#flag input[name=reason]", "second look: copied run")
    admin.page.click("#flag button[type=submit]")
    admin.page.wait_for_url(f"{page_url}#reports")
    admin.page.locator("#report-list li form").locator('button[value="uphold"]').click()
    admin.page.wait_for_url(f"{page_url}#reports")
    assert admin.page.locator("#status").inner_text() == "removed"
    admin.page.click("#signout")
    admin.page.wait_for_url(f"{site.url}/")
    assert "browser/reported" not in admin.models()


def test_a_re_verified_run_shows_both_replays_and_its_badge(site: Hub, visit: Any,
                                                           pytester: pytest.Pytester) -> None:
    """A real offline run submitted to the hub, then re-verified by ``req2rank-hub reverify``."""
    token = site.token("browser-reference-runner")
    result = pytester.runpytest(f"--r2r-submit={site.url}", f"--r2r-hub-token={token}",
                                "-p", "no:cacheprovider", "--r2r-rounds=5")
    found = re.search(r"/submissions/(\d+)", result.stdout.str())
    assert result.ret == 0 and found, result.stdout.str()
    target = found.group(1)
    assert main(["--database-url", site.config.database_url, "reverify", target]) == 0
    v = visit()
    v.page.goto(f"{site.url}/")
    row = v.page.locator('tr[data-model="r2r/reference"]')
    assert row.locator(".status .badge").first.inner_text() == "verified"
    row.locator("a").click()
    v.page.wait_for_url("**/models/r2r/reference")
    assert v.page.locator("#history circle.verified").count() == 1
    v.page.goto(f"{site.url}/submissions/{target}")
    assert v.page.locator("#status").inner_text() == "verified"
    for kind in ("answers", "model"):
        assert v.page.locator(f'#reverification table.replay[data-kind="{kind}"] tbody tr'
                              ).count() == 5
    assert "its model asked again (5 items): verified" in v.page.locator("#history").inner_text()
    v.shoot("submission-verified")


def test_the_api_docs_render_from_the_hubs_own_assets_under_its_policy(site: Hub,
                                                                       visit: Any) -> None:
    """Swagger UI at /docs: its script and stylesheet from the hub, its inline start-up
    script allowed by its hash; nothing blocked (a blocked script or style is a console
    error), no request leaves the hub."""
    v = visit()
    requested: list[str] = []
    v.page.on("request", lambda r: requested.append(r.url))
    v.page.goto(f"{site.url}/docs")
    v.page.wait_for_selector('.opblock-summary-path[data-path="/api/submissions"]')
    assert v.page.locator(".opblock").count() >= 10
    assert all(url.startswith((site.url, "data:")) for url in requested), \
        requested
    v.shoot("docs")
