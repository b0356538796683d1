"""The HTML reports of real runs, opened from disk in a real headless Chromium: every plot
renders, nothing logs an error, the item filters and the item details work, hostile run
content stays text, and the first screen shows the score. Screenshots of the reports are
written as test artifacts (``R2R_TEST_ARTIFACTS``, default ``.req2rank/test-artifacts/``).

Playwright drives Debian's ``/usr/bin/chromium`` (``R2R_CHROMIUM`` to use another); the
tests skip, saying why, when it or Playwright is missing (``.ci/chromium.sh`` installs it).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .report_runs import HOSTILE, Run

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

ARTIFACTS_ENV = "R2R_TEST_ARTIFACTS"
PLOTS = {
    "dynamic": ["dimensions", "heatmap", "status", "pass-ratio", "judges", "latency"],
    "humaneval": ["status", "pass-ratio", "latency"],
    "nversion": ["status", "pass-ratio", "latency", "patterns"],
    "ranking": ["ranking", "status", "pass-ratio", "latency"],
    "judged-models": ["ranking", "dimensions", "heatmap", "heatmap", "status", "pass-ratio",
                      "judges", "latency"],
}


@pytest.fixture(scope="session")
def artifacts(pytestconfig: pytest.Config) -> Path:
    directory = Path(os.environ.get(ARTIFACTS_ENV) or
                     pytestconfig.rootpath / ".req2rank" / "test-artifacts")
    directory.mkdir(parents=True, exist_ok=True)
    return directory


class Report:
    """A report open in a page, with everything the page logged."""

    def __init__(self, browser: Browser, path: Path) -> None:
        self.page: Page = browser.new_page(viewport={"width": 1400, "height": 900})
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type in
                     ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.requests: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.goto(path.as_uri())

    def visible_rows(self) -> list[dict[str, Any]]:
        return self.page.eval_on_selector_all(
            "#item-table tbody tr:not([hidden])",
            "rows => rows.map(r => ({id: r.dataset.id, status: r.dataset.status, "
            "dataset: r.dataset.dataset, skills: r.dataset.skills}))")

    def close(self) -> None:
        self.page.close()


@pytest.fixture
def open_report(browser: Browser) -> Iterator[Any]:
    opened: list[Report] = []

    def open_(path: Path) -> Report:
        opened.append(Report(browser, path))
        return opened[-1]

    yield open_
    for report in opened:
        report.close()


@pytest.mark.parametrize("name", list(PLOTS))
def test_every_plot_renders_without_an_error_or_a_request(
    runs: dict[str, Run], open_report: Any, name: str
) -> None:
    report = open_report(runs[name].html)
    plots = report.page.eval_on_selector_all(
        "svg.plot", "svgs => svgs.map(s => [s.dataset.plot, s.getBoundingClientRect().width, "
        "s.getBoundingClientRect().height, s.querySelectorAll('path, text, use').length])")
    assert [p[0] for p in plots] == PLOTS[name]
    for plot, width, height, shapes in plots:
        assert width > 200 and height > 80 and shapes > 10, f"{plot} did not render"
    assert report.errors == []
    assert report.requests == [runs[name].html.as_uri()], "the report asked for something"


def test_the_first_screen_shows_the_score_its_interval_and_the_metrics(
    runs: dict[str, Run], open_report: Any
) -> None:
    report = open_report(runs["dynamic"].html)
    summary = runs["dynamic"].document()["summary"]
    page = report.page
    assert page.inner_text("#score") == f"{summary['overall_score']:.1f}/100"
    assert page.inner_text("#ci").startswith(f"95% CI {summary['ci95']['low']:.1f}")
    for selector in ("#score", "#ci", "#datasets"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["y"] + box["height"] <= 900, f"{selector} below the fold"


def test_the_item_filters_show_only_matching_items(runs: dict[str, Run], open_report: Any
                                                    ) -> None:
    document = runs["humaneval"].document()
    report = open_report(runs["humaneval"].html)
    page = report.page
    total = len(document["items"])
    for status in ("wrong_answer", "syntax_error", "success"):
        page.select_option("#filter-status", status)
        wanted = [i["item_id"] for i in document["items"] if i["status"] == status]
        assert [r["id"] for r in report.visible_rows()] == wanted
        assert page.inner_text("#item-count") == f"{len(wanted)} of {total} items"
    page.select_option("#filter-status", "")
    first = document["items"][0]["item_id"]
    page.fill("#filter-text", first.split("/", 1)[1])
    assert first in [r["id"] for r in report.visible_rows()]
    page.fill("#filter-text", "no such item")
    assert report.visible_rows() == []
    page.fill("#filter-text", "")
    page.select_option("#filter-dataset", "humaneval")
    assert len(report.visible_rows()) == total
    assert report.errors == []


def test_the_skill_filter_of_a_dynamic_run(runs: dict[str, Run], open_report: Any) -> None:
    document = runs["dynamic"].document()
    report = open_report(runs["dynamic"].html)
    skill = document["items"][0]["requirement"]["metadata"]["skills"][0]
    report.page.select_option("#filter-skill", skill)
    wanted = [i["item_id"] for i in document["items"]
              if skill in i["requirement"]["metadata"]["skills"]]
    assert [r["id"] for r in report.visible_rows()] == wanted


def test_an_items_details_open_with_its_failed_case_code_and_hostile_text_as_text(
    runs: dict[str, Run], open_report: Any, artifacts: Path
) -> None:
    document = runs["humaneval"].document()
    item = next(i for i in document["items"] if i["status"] == "wrong_answer")
    report = open_report(runs["humaneval"].html)
    page = report.page
    page.click(f'#item-table tr[data-id="{item["item_id"]}"] button')
    dialog = page.locator("#detail")
    assert dialog.is_visible()
    text = dialog.inner_text()
    assert item["item_id"] in text and "First failed case" in text
    failed = next(t for t in item["tests"] if t["status"] != "success")
    assert failed["name"] in text
    code = page.locator("#detail pre").all_inner_texts()
    assert any(HOSTILE in text for text in code), "the code's hostile comment, as text"
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#detail img").count() == 0
    page.screenshot(path=artifacts / "report-humaneval-item.png")
    page.keyboard.press("Escape")
    assert not dialog.is_visible()
    assert report.errors == []


def test_a_judged_items_details_show_every_verdict(runs: dict[str, Run], open_report: Any,
                                                   artifacts: Path) -> None:
    document = runs["dynamic"].document()
    item = document["items"][0]
    report = open_report(runs["dynamic"].html)
    page = report.page
    page.click("#item-table tbody tr:first-child button")
    text = page.inner_text("#detail")
    assert item["requirement"]["title"] in text
    for verdict in item["judges"]:
        assert verdict["judge"] in text
    for name in item["code"]:
        assert name in text
    page.screenshot(path=artifacts / "report-dynamic-item.png")


@pytest.mark.parametrize("name", ["dynamic", "humaneval"])
def test_screenshots_of_the_reports(runs: dict[str, Run], open_report: Any, artifacts: Path,
                                    name: str) -> None:
    report = open_report(runs[name].html)
    path = artifacts / f"report-{name}.png"
    report.page.screenshot(path=path, full_page=True)
    assert path.stat().st_size > 10_000


def test_items_sort_by_score_both_ways(runs: dict[str, Run], open_report: Any) -> None:
    document = runs["humaneval"].document()
    report = open_report(runs["humaneval"].html)
    header = report.page.locator('#item-table th[data-sort="score"]')
    scores = {i["item_id"]: i["score"] for i in document["items"]}
    header.click()
    ascending = [scores[r["id"]] for r in report.visible_rows()]
    assert ascending == sorted(ascending) and ascending[0] < ascending[-1]
    header.click()
    assert [scores[r["id"]] for r in report.visible_rows()] == ascending[::-1]
    report.page.select_option("#filter-status", "success")  # the filter keeps the order
    assert all(r["status"] == "success" for r in report.visible_rows())
    assert report.errors == []


def test_the_ranking_of_several_models_shows_best_first_with_its_plot(
    runs: dict[str, Run], open_report: Any, artifacts: Path
) -> None:
    ranking = runs["ranking"].document()["summary"]["ranking"]
    report = open_report(runs["ranking"].html)
    page = report.page
    page.click('nav a[href="#ranking"]')
    section = page.locator("#ranking")
    assert section.is_visible()
    models = page.eval_on_selector_all("#ranking-table tbody tr td:nth-child(4)",
                                       "cells => cells.map(c => c.textContent)")
    assert models == [row["model"] for row in ranking["models"]]
    assert page.inner_text("#ranking-tied").startswith("The data cannot separate: ")
    tops = dict(page.eval_on_selector_all(
        'svg[data-plot="ranking"] text',
        "texts => texts.map(t => [t.textContent, t.getBoundingClientRect().top])"))
    heights = [tops[row["model"]] for row in ranking["models"]]
    assert heights == sorted(heights) and len(set(heights)) == len(heights), \
        "the plot does not show the models best first, top down"
    section.screenshot(path=artifacts / "report-ranking.png")
    assert report.errors == []


def test_a_run_of_several_models_shows_each_models_score_first_and_its_tables_fit(
    runs: dict[str, Run], open_report: Any, artifacts: Path
) -> None:
    run = runs["judged-models"]
    by_model, report = run.document()["summary"]["by_model"], open_report(run.html)
    page = report.page
    rows = page.eval_on_selector_all(
        "#model-scores tbody tr", "rows => rows.map(r => [r.cells[0].textContent, "
        "r.cells[1].textContent, r.getBoundingClientRect().bottom])")
    assert [row[:2] for row in rows] == [[model, f"{m['overall_score']:.1f}"]
                                         for model, m in by_model.items()]
    assert all(0 < row[2] < 900 for row in rows), "the models' scores are not on the first screen"
    assert page.locator("#score").count() == 0
    for section in ("#judges", "#usage", "#dimensions"):  # wide tables scroll inside the panel
        spill = page.eval_on_selector(
            section, "s => s.scrollWidth - s.clientWidth")
        assert spill <= 0, f"{section} is {spill} px wider than its panel"
    page.locator("#judges").screenshot(path=artifacts / "report-models-judges.png")
    page.screenshot(path=artifacts / "report-models.png", full_page=True)
    assert report.errors == []
