"""The store keeps a run of several models' ranking in its ``rankings`` table, replaces it
when the run finishes again, and fills it from the runs' summaries in an older store; the
``req2rank runs`` list shows a ranked run's models best first from it."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from pytest_req2rank.cli import main
from pytest_req2rank.models import ItemResult
from pytest_req2rank.report import build_summary, rank_items, ranking_lines, ranking_section
from pytest_req2rank.store import History, Store

PASSED = {"model-a": [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
          "model-b": [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0],
          "model-c": [0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]}
"""Twelve requirements: a and b the data cannot separate, c apart from both."""


def summary_of(passed: dict[str, list[int]]) -> dict[str, Any]:
    items = [ItemResult(item_id=f"d/t{i}@{model}", dataset="d", task_id=f"t{i}", model=model,
                        status="success" if ok else "wrong_answer", score=100.0 * ok,
                        finished_at=f"{model}{i:02d}")
             for model, oks in passed.items() for i, ok in enumerate(oks)]
    ranking = rank_items(items, seed=3)
    summary = build_summary(items, planned=len(items), wall_time_s=1.0, seed=3)
    if ranking is not None:
        summary = summary.model_copy(update={"ranking": ranking_section(ranking, seed=3)})
    return summary.model_dump(mode="json")


def finished_run(store: Store, run_id: str, summary: dict[str, Any]) -> None:
    store.start_run(run_id=run_id, started_at=f"2026-01-01T00:00:0{len(run_id)}", model="m",
                    suite="s", seed=3, plan={"item_ids": []})
    store.finish_run(run_id, finished_at="t", summary=summary)


def test_a_ranked_run_keeps_one_row_per_model_best_first(tmp_path: Path) -> None:
    summary = summary_of(PASSED)
    assert summary["ranking"]["groups"] == [["model-a", "model-b"], ["model-c"]]
    store = Store(tmp_path / "r.db")
    try:
        finished_run(store, "ranked", summary)
        finished_run(store, "ranked", summary)  # a resumed run finishes again: replaced
        finished_run(store, "single", summary_of({"model-a": PASSED["model-a"]}))
        rows = store.ranking("ranked")
        assert store.ranking("single") == []
    finally:
        store.close()
    expected = summary["ranking"]["models"]
    assert [(r["model"], r["position"], r["rank"], r["rank_low"], r["rank_high"],
             r["rank_group"], r["requirements"], r["paired"], r["level"]) for r in rows] == [
        (row["model"], i, row["rank"], row["rank_low"], row["rank_high"], row["group"],
         row["requirements"], 1, 0.95) for i, row in enumerate(expected, start=1)]
    for row, kept in zip(expected, rows, strict=True):
        for key in ("score", "score_low", "score_high", "diff_to_leader", "diff_low",
                    "diff_high"):
            assert kept[key] == row[key]


def test_an_older_store_gains_the_table_filled_from_its_runs_summaries(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "old.db"
    store = Store(path)
    try:
        finished_run(store, "ranked", summary_of(PASSED))
        finished_run(store, "single", summary_of({"model-c": PASSED["model-c"]}))
        store.start_run(run_id="running", started_at="t", model="m", suite="s", seed=3, plan={})
        kept = store.ranking("ranked")
    finally:
        store.close()
    with closing(sqlite3.connect(path)) as connection:  # as a store of the version before
        connection.execute("DROP TABLE rankings")
        connection.commit()
    with History(path) as history:
        assert history.rankings() == {}
    assert main(["runs", "--db", str(path)]) == 0  # read-only: from the summary
    (line,) = [line for line in capsys.readouterr().out.splitlines()
               if line.startswith("ranked ")]
    assert "  model-a = model-b > model-c  " in line

    store = Store(path)  # a run of this version opens it
    try:
        assert store.ranking("ranked") == kept
        assert store.ranking("single") == store.ranking("running") == []
    finally:
        store.close()
    with History(path) as history:
        assert list(history.rankings()) == ["ranked"]
        assert [r["model"] for r in history.rankings()["ranked"]] == [
            "model-a", "model-b", "model-c"]


def test_a_summary_this_version_cannot_read_leaves_its_run_unranked(tmp_path: Path) -> None:
    path = tmp_path / "odd.db"
    store = Store(path)
    finished_run(store, "ranked", summary_of(PASSED))
    store.close()
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("DROP TABLE rankings")
        connection.execute("UPDATE runs SET summary = ?",
                           [json.dumps({"ranking": {"models": [{"model": "x"}]}})])
        connection.commit()
    store = Store(path)
    try:
        assert store.ranking("ranked") == []
    finally:
        store.close()


def test_show_ranks_an_unfinished_runs_stored_items(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run of several models killed before its end has no summary: ``show`` ranks its
    stored items as the run's end would have (the same seed, the same table)."""
    items = [ItemResult(item_id=f"d/t{i}@{model}", dataset="d", task_id=f"t{i}", model=model,
                        status="success" if ok else "wrong_answer", score=100.0 * ok,
                        finished_at=f"{model}{i:02d}")
             for model, oks in PASSED.items() for i, ok in enumerate(oks)]
    path = tmp_path / "killed.db"
    store = Store(path)
    try:
        store.start_run(run_id="killed", started_at="2026-01-01T00:00:00+00:00",
                        model=",".join(PASSED), suite="s", seed=3,
                        plan={"item_ids": [i.item_id for i in items]},
                        settings={"model": "model-a", "models": list(PASSED)})
        for result in items:
            store.add_item("killed", result)
    finally:
        store.close()
    assert main(["show", "killed", "--db", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    start = out.index(next(line for line in out if line.startswith("ranking of 3 models")))
    expected = ranking_lines(rank_items(items, seed=3))  # type: ignore[arg-type]
    assert out[start + 1:start + 1 + len(expected)] == expected
    assert expected[-1] == "the data cannot separate: model-a = model-b"
