"""The controller's outputs when one cannot be written during or after the run: the run goes
on, nothing finished is lost, and each failure is one line saying where the data is instead."""

from __future__ import annotations

import json
import sqlite3
import tempfile
from pathlib import Path

import pytest

from pytest_req2rank.models import ItemResult
from pytest_req2rank.plan import RunPlan
from pytest_req2rank.run import Controller
from pytest_req2rank.settings import Settings

PLAN = RunPlan(run_id="r1", seed=1, model="m", suite="s", created_at="t",
               item_ids=("d/0", "d/1"))


def item(index: int) -> ItemResult:
    return ItemResult(item_id=f"d/{index}", dataset="d", task_id=str(index), model="m",
                      status="success", score=100.0)


def stored_items(path: Path) -> int:
    with sqlite3.connect(path) as connection:
        return int(connection.execute("SELECT count(*) FROM items").fetchone()[0])


def test_a_q_and_a_log_that_breaks_mid_run(tmp_path: Path) -> None:
    controller = Controller(Settings(dir=tmp_path), PLAN, "none", "full")
    controller.record(item(0))
    qa_log = controller.paths.qa_log
    qa_log.unlink()
    qa_log.mkdir()  # the log's path is taken now
    controller.record(item(1))
    document = controller.finish(interrupted=False)
    assert document is not None and document.summary.items_total == 2
    assert controller.output_errors == {
        "qa log": f"could not write the Q&A log {qa_log} (Is a directory)"}
    assert stored_items(controller.paths.store) == 2
    assert json.loads(controller.paths.results.read_text())["run"]["id"] == "r1"


def test_a_store_that_cannot_be_written_and_results_that_cannot_either(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With neither the store nor the results path (nor the run directory), the results go
    to a new file of the temporary directory, and the line says so."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    settings = Settings(dir=blocker / "out", db=blocker / "x.db", json=blocker / "r.json")
    controller = Controller(settings, PLAN, "none", "full")
    controller.record(item(0))
    controller.record(item(1))
    assert controller.finish(interrupted=False) is not None
    store_error = controller.output_errors["store"]
    assert store_error.startswith(f"could not write the store {blocker / 'x.db'} (")
    kept = next((tmp_path / "tmp").glob("req2rank-r1-*-results.json"))
    assert controller.output_errors["results"] == (
        f"could not write the results JSON {blocker / 'r.json'} (File exists); "
        f"written to {kept} instead")
    assert len(json.loads(kept.read_text())["items"]) == 2


def test_a_results_path_that_fails_late_goes_to_the_run_directory(tmp_path: Path) -> None:
    settings = Settings(dir=tmp_path / "out", json=tmp_path / "gone" / "r.json")
    controller = Controller(settings, PLAN, "none", "full")
    controller.record(item(0))
    (tmp_path / "gone").write_text("")  # a file where the directory was to be
    controller.finish(interrupted=False)
    kept = controller.paths.qa_log.with_name("results.json")
    assert controller.output_errors == {"results": (
        f"could not write the results JSON {tmp_path / 'gone' / 'r.json'} (File exists); "
        f"written to {kept} instead; its items are in the store {tmp_path / 'out' / 'req2rank.db'} "
        "(run r1)")}
    assert json.loads(kept.read_text())["summary"]["items_total"] == 1


def test_a_report_that_fails_to_render_keeps_the_run(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in the HTML report costs the report, not the run: the results are written,
    the error says what happened and where everything is."""
    from pytest_req2rank import report

    def broken(document: object, path: Path) -> Path:
        raise KeyError("dimensions")

    monkeypatch.setattr(report, "write_html", broken)
    controller = Controller(Settings(dir=tmp_path, html=True), PLAN, "none", "full")
    controller.record(item(0))
    assert controller.finish(interrupted=False) is not None
    assert json.loads(controller.paths.results.read_text())["run"]["id"] == "r1"
    assert controller.output_errors == {"html": (
        f"could not render the HTML report {controller.paths.html} (KeyError: 'dimensions') - "
        "please report this as a bug; the results JSON has everything it would show")}


def test_the_report_is_written_from_the_results_document(tmp_path: Path) -> None:
    controller = Controller(Settings(dir=tmp_path, html=True), PLAN, "none", "full")
    controller.record(item(0))
    document = controller.finish(interrupted=False)
    assert document is not None and controller.output_errors == {}
    assert controller.paths.html == controller.paths.results.with_name("report.html")
    from pytest_req2rank.report import render_html

    assert controller.paths.html.read_text() == render_html(
        json.loads(controller.paths.results.read_text()))
