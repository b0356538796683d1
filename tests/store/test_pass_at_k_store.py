"""The store keeps pass@k and each item's task and sample, and migrates an older store."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from pytest_req2rank.models import ItemResult
from pytest_req2rank.report import build_summary
from pytest_req2rank.store import Store

OLD_SCHEMA = """
CREATE TABLE runs (run_id TEXT PRIMARY KEY, started_at TEXT, finished_at TEXT, model TEXT,
                   suite TEXT, seed INTEGER, plan TEXT, summary TEXT, status TEXT);
CREATE TABLE items (run_id TEXT, item_id TEXT, dataset TEXT, status TEXT, pass_ratio FLOAT,
                    finished_at TEXT, result TEXT, PRIMARY KEY (run_id, item_id),
                    FOREIGN KEY (run_id) REFERENCES runs(run_id));
CREATE TABLE llm_cache (key TEXT PRIMARY KEY, model TEXT, created_at TEXT, completion TEXT);
INSERT INTO runs VALUES ('old', 't', 't', 'm', 's', 1, '{}', '{}', 'finished');
INSERT INTO items VALUES ('old', 'd/0', 'd', 'success', 1.0, 't', '{}');
"""


def item(task: str, sample: int, status: str) -> ItemResult:
    return ItemResult(item_id=f"d/{task}/s{sample}", dataset="d", task_id=task, model="m",
                      status=status, sample=sample, finished_at=f"{task}{sample}",  # type: ignore[arg-type]
                      score=100.0 if status == "success" else 0.0)


def test_an_older_store_gains_the_columns_and_the_table(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with closing(sqlite3.connect(path)) as connection:
        connection.executescript(OLD_SCHEMA)
    items = [item("a", 0, "success"), item("a", 1, "wrong_answer"), item("a", 2, "api_error"),
             item("b", 0, "success"), item("b", 1, "success")]
    summary = build_summary(items, planned=5, wall_time_s=1.0)
    assert summary.pass_at_k["d"].values == {"pass@1": 0.75}  # a: 1 of 2 (api_error no sample)
    store = Store(path)
    try:
        store.start_run(run_id="new", started_at="t", model="m", suite="s", seed=1, plan={})
        for result in items:
            store.add_item("new", result)
        store.finish_run("new", finished_at="t", summary=summary.model_dump(mode="json"))
        store.finish_run("new", finished_at="t2", summary=summary.model_dump(mode="json"))
        assert store.pass_at_k("new") == {"d": {1: 0.75}}
        assert store.pass_at_k("old") == {}
        assert [i.item_id for i in store.items("new")] == [i.item_id for i in items]
    finally:
        store.close()
    with closing(sqlite3.connect(path)) as connection:
        rows = connection.execute(
            "select task_id, count(*), sum(status = 'success') from items where run_id = 'new' "
            "group by task_id order by task_id").fetchall()
        assert rows == [("a", 3, 1), ("b", 2, 2)]
        assert connection.execute("select sample from items where item_id = 'd/a/s2'"
                                  ).fetchone() == (2,)
        assert connection.execute("select * from pass_at_k").fetchall() == [
            ("new", "d", 1, 0.75, 2, 4, 3)]
        assert connection.execute("select task_id, sample from items where run_id = 'old'"
                                  ).fetchall() == [(None, None)]
