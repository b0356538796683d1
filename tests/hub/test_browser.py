"""The hub's pages in a real browser (Debian's chromium driven by Playwright): the
leaderboard's filter and sort, the CI drawn, a submission's badge."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hub_server import Hub, make_items, make_payload

pytestmark = pytest.mark.slow  # a browser start

@pytest.fixture(scope="module")
def page(browser: Any) -> Iterator[Any]:
    """One page of the test module's browser."""
    opened = browser.new_page()
    try:
        yield opened
    finally:
        opened.close()


def test_the_leaderboard_filters_sorts_and_links_to_submissions(page: Any, hub: Hub, user: str
                                                                ) -> None:
    with hub.client(user) as client:
        for model, scores in (("browser/low", [40.0, 45.0, 50.0] * 2),
                              ("browser/high", [80.0, 85.0, 90.0] * 2),
                              ("browser/high", [60.0, 65.0, 70.0] * 2)):
            client.post("/api/submissions", json=make_payload(
                client, items=make_items(scores=scores), model=model))
    page.goto(f"{hub.url}/")
    models = page.locator("#leaderboard tbody tr").evaluate_all(
        "rows => rows.map(r => r.dataset.model)")
    assert models.index("browser/high") < models.index("browser/low")
    page.select_option("select[name=strategy]", "latest")
    page.click("button[type=submit]")
    page.wait_for_url("**strategy=latest**")
    row = page.locator('tr[data-model="browser/high"]')
    assert row.locator(".score").inner_text() == "65.00"
    bar = row.locator(".ci .range")
    assert bar.count() == 1 and bar.bounding_box()["width"] > 0
    row.locator("a").click()
    page.wait_for_url("**/models/browser/high")
    assert page.locator(".badge.accepted").count() == 2
    page.locator("#submissions a").first.click()
    assert page.locator("#status").inner_text() == "accepted"
