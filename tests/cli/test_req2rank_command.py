"""The ``req2rank`` command over a store of real runs: a finished one, one compared with it,
one stopped early (-x) and one that never finished (its process killed)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from pytest_req2rank import report
from pytest_req2rank.cli import main
from pytest_req2rank.models import ItemResult
from pytest_req2rank.report import ResultsDocument, build_summary, load_results, render_markdown
from pytest_req2rank.store import Store

DATA = Path(__file__).parent.parent / "data"
BENCHMARK = (Path(__file__).parents[2] / "benchmarks" / "test_benchmark.py").read_text()
SUITE = "--r2r-suite=jsonl:status_suite.jsonl"
SAMPLES = "--r2r-model=r2r/samples:status_samples.jsonl"
FAST = "--r2r-sandbox-timeout-ms=750"


def summary_lines(outlines: list[str]) -> list[str]:
    """The lines ``render_summary`` printed at the end of a pytest run."""
    start = next(i for i, line in enumerate(outlines) if "req2rank summary" in line) + 1
    end = next(i for i, line in enumerate(outlines) if line.startswith("q&a log: "))
    return outlines[start:end + 1]


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], list[str]]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


@pytest.fixture
def history(pytester: pytest.Pytester) -> dict[str, object]:
    """A store with four runs; returns their ids, the baseline run's summary lines, paths."""
    pytester.makepyfile(test_benchmark=BENCHMARK)
    for name in ("status_suite.jsonl", "status_samples.jsonl"):
        shutil.copy(DATA / name, pytester.path / name)
    common = (SUITE, "--r2r-seed=4", "-p", "no:xdist")
    base = pytester.runpytest(*common, "--r2r-json=base.json")
    assert base.ret == pytest.ExitCode.OK
    worse = pytester.runpytest(*common[1:], SUITE, SAMPLES, FAST, "--r2r-baseline=base.json",
                               "--r2r-json=cand.json")
    assert worse.ret == 6
    stopped = pytester.runpytest(*common, SAMPLES, FAST, "-x", "--r2r-json=stopped.json")
    assert stopped.ret == pytest.ExitCode.TESTS_FAILED
    db = pytester.path / ".req2rank" / "req2rank.db"
    ids = {name: load_results(pytester.path / f"{name}.json").run.id
           for name in ("base", "cand", "stopped")}
    # a run whose process was killed: started, two items stored, never finished
    store = Store(db)
    store.start_run(run_id="20991231-235959-killed", started_at="2099-12-31T23:59:59+00:00",
                    model="r2r/reference", suite="jsonl:status_suite.jsonl", seed=4,
                    plan={"run_id": "20991231-235959-killed", "seed": 4, "model": "r2r/reference",
                          "suite": "jsonl:status_suite.jsonl", "created_at": "x",
                          "item_ids": [i.item_id for i in load_results(
                              pytester.path / "base.json").items]},
                    settings={"dir": str(pytester.path / ".req2rank")}, isolation="full")
    for item in load_results(pytester.path / "cand.json").items[:2]:
        store.add_item("20991231-235959-killed", item)
    store.close()
    ids["killed"] = "20991231-235959-killed"
    return {"ids": ids, "db": db, "path": pytester.path,
            "base_summary": summary_lines(base.outlines)}


def test_runs_show_compare_and_report(history: dict[str, object],
                                      capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    ids: dict[str, str] = history["ids"]  # type: ignore[assignment]
    db, path = str(history["db"]), Path(str(history["path"]))
    monkeypatch.chdir(path)  # the default store: .req2rank/req2rank.db here

    code, out, _ = cli(capsys, "runs")
    assert code == 0
    assert out[0].split() == ["run", "started", "status", "model", "suite", "items", "score",
                              "95%", "CI"]
    rows = {line.split()[0]: line.split() for line in out[1:]}
    assert out[1].startswith(ids["killed"])  # newest first
    started = [" ".join(row[1:3]) for row in (line.split() for line in out[1:])]
    assert started == sorted(started, reverse=True)
    assert rows[ids["base"]][3:] == ["finished", "r2r/reference", "jsonl:status_suite.jsonl",
                                     "12/12", "100.0", "75.8-100.0"]
    assert rows[ids["cand"]][3:] == ["finished", "r2r/samples:status_samples.jsonl",
                                     "jsonl:status_suite.jsonl", "12/12", "16.7", "4.7-44.8"]
    assert rows[ids["stopped"]][3] == "interrupted" and rows[ids["stopped"]][6].endswith("/12")
    assert rows[ids["killed"]][3:7] == ["unfinished", "r2r/reference",
                                        "jsonl:status_suite.jsonl", "2/12"]

    code, out, _ = cli(capsys, "show", ids["base"], "--db", db)
    assert code == 0 and out[0] == "status: finished"
    assert out[1:] == history["base_summary"]  # as the run printed it

    code, out, _ = cli(capsys, "show", ids["killed"])
    assert code == 0 and out[0].startswith("status: unfinished (still running, or killed")
    assert out[2] == "score: 50.0/100 = 100 x accepted@1 (95% CI 9.4-90.5, wilson)"
    assert f"warning: run {ids['killed']} did not finish (still running, or killed): this " \
           "summary is recomputed from its 2 stored items, without gates" in out
    assert any(line.startswith("error: no results JSON at ") for line in out)

    # the same paired comparison as the candidate's own baseline gate
    code, out, _ = cli(capsys, "compare", ids["base"], ids["cand"])
    gate = load_results(path / "cand.json").summary.baseline
    assert gate is not None and code == 6
    assert out[2] == (
        f"baseline {ids['base']} (.req2rank/req2rank.db): baseline 100.0 | candidate 16.7 | "
        f"difference {gate.diff:+.1f} (CI95 {gate.diff_low:+.1f} to {gate.diff_high:+.1f}, "
        "12 pairs)")
    assert out[-1].startswith("gate baseline: FAILED (regression: difference -83.3")
    code, out, _ = cli(capsys, "compare", ids["base"], ids["cand"], "--max-drop", "100")
    assert code == 0 and out[-1].startswith("gate baseline: PASSED")

    # the report of a stored run is the one the run wrote
    code, out, _ = cli(capsys, "report", ids["cand"], "--markdown", "again.md")
    assert code == 0 and out == [f"wrote {Path('again.md')}"]
    assert (path / "again.md").read_text() == (path / "cand.md").read_text()
    assert "## Before / after" in (path / "again.md").read_text()
    (path / "cand.md").unlink()
    assert cli(capsys, "report", ids["cand"])[1] == [f"wrote {path / 'cand.md'}"]
    assert (path / "cand.md").read_text() == (path / "again.md").read_text()
    assert render_markdown(load_results(path / "cand.json"), load_results(path / "base.json")) \
        == (path / "again.md").read_text()


def stored_run(tmp_path: Path) -> tuple[str, Path]:
    """A finished run written through the store's API (the plugin's own calls): its id and db."""
    items = [ItemResult(item_id=f"d/{k}", dataset="d", task_id=str(k), model="m",
                        status="success" if k else "timeout", score=100.0 if k else 0.0,
                        pass_ratio=1.0 if k else 0.0) for k in range(3)]
    summary = build_summary(items, planned=3, wall_time_s=1.0, seed=2)
    db = tmp_path / "req2rank.db"
    store = Store(db)
    store.start_run(run_id="r-html", started_at="2026-01-01T00:00:00+00:00", model="m",
                    suite="humaneval", seed=2, plan={"item_ids": [i.item_id for i in items]},
                    settings={"dir": str(tmp_path)}, isolation="full", sandbox="process",
                    plugin_version="0.1")
    for item in items:
        store.add_item("r-html", item)
    store.finish_run("r-html", finished_at="2026-01-01T00:00:05+00:00",
                     summary=summary.model_dump(mode="json"))
    store.close()
    return "r-html", db


def test_html_reports_need_write_html(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    run_id, db = stored_run(tmp_path)
    monkeypatch.delattr(report, "write_html", raising=False)
    code, out, err = cli(capsys, "report", run_id, "--html", "--db", str(db))
    assert (code, out) == (2, [])
    assert err == ["req2rank report: error: --html: this installation of pytest-req2rank has no "
                   "HTML report (pytest_req2rank.report.write_html); use --markdown"]
    calls: list[tuple[dict[str, object], Path]] = []

    def write_html(document: dict[str, object], target: Path) -> Path:
        calls.append((document, target))
        target.write_text("<html></html>")
        return target

    monkeypatch.setattr(report, "write_html", write_html, raising=False)
    code, out, _ = cli(capsys, "report", run_id, "--html", "--markdown", "--db", str(db))
    run_dir = tmp_path / "runs" / run_id
    assert code == 0
    assert out == [f"wrote {run_dir / 'report.md'}", f"wrote {run_dir / 'report.html'}"]
    ((document, target),) = calls
    assert target == run_dir / "report.html"
    assert document["run"]["id"] == run_id and len(document["items"]) == 3  # type: ignore[index]
    assert ResultsDocument.model_validate(document).summary.overall_score == pytest.approx(66.67)
    assert "**66.7 / 100**" in (run_dir / "report.md").read_text()


def test_store_and_run_errors_are_one_line(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nothing.db"
    code, out, err = cli(capsys, "runs", "--db", str(missing))
    assert (code, out) == (2, [])
    assert err == [f"req2rank runs: error: --db: {missing}: no store here; pass the store of "
                   "your runs with --db PATH (a run writes .req2rank/req2rank.db, or its "
                   "--r2r-db)"]
    garbage = tmp_path / "garbage.db"
    garbage.write_text("not a database, just text " * 200)
    code, _, err = cli(capsys, "show", "x", "--db", str(garbage))
    assert code == 2 and len(err) == 1 and "not an SQLite database" in err[0]
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE notes (text)")
    code, _, err = cli(capsys, "runs", "--db", str(other))
    assert code == 2 and err == [
        f"req2rank runs: error: --db: {other}: an SQLite database, but not a req2rank store "
        "(its tables: notes); pass another path; the file is left as it is"]
    code, _, err = cli(capsys, "runs", "--db", str(tmp_path))
    assert code == 2 and err[0].endswith("is a directory; the store is a file, e.g. "
                                         f"{tmp_path / 'req2rank.db'}")
    assert other.read_bytes() and garbage.read_text().startswith("not a database")

    store = Store(tmp_path / "req2rank.db")
    store.start_run(run_id="r-one", started_at="2026-01-01T00:00:00+00:00", model="m",
                    suite="s", seed=1, plan={"item_ids": []})
    store.close()
    db = str(tmp_path / "req2rank.db")
    code, _, err = cli(capsys, "show", "r-two", "--db", db)
    assert code == 2 and err == [
        f"req2rank show: error: no run 'r-two' in {db} (newest: r-one); `req2rank runs` lists "
        "them, --db PATH picks another store"]
    code, _, err = cli(capsys, "compare", "r-one", "r-one", "--db", db)
    said_once = ("req2rank compare: error: runs r-one (0 requirements scored) and r-one (0) "
                 "share no scored requirement: nothing to compare; compare runs of one suite "
                 "and seed (a run with --r2r-baseline reruns its baseline's)")
    assert code == 2 and err == [said_once]
    code, out, _ = cli(capsys, "runs", "--db", db)
    assert code == 0 and out[1].split()[:4] == ["r-one", "2026-01-01", "00:00:00", "unfinished"]


def test_hub_commands_say_what_is_missing_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
        ) -> None:
    monkeypatch.delenv("R2R_HUB_URL", raising=False)
    code, _, err = cli(capsys, "login")
    assert code == 2 and err == ["req2rank login: error: no hub URL: pass it (req2rank login "
                                 "URL) or set R2R_HUB_URL"]
    store = Store(tmp_path / "req2rank.db")
    store.start_run(run_id="r-one", started_at="2026-01-01T00:00:00+00:00", model="m",
                    suite="s", seed=1, plan={"item_ids": []})
    store.close()
    code, _, err = cli(capsys, "submit", "r-one", "--db", str(tmp_path / "req2rank.db"))
    assert code == 2 and len(err) == 1
    assert err[0].startswith("req2rank submit: error: run r-one in ")
    assert "was not run with --r2r-submit" in err[0]
