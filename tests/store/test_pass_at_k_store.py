"""The store keeps pass@k (a row per model: a run of several models' never pooled) and each
item's task and sample, and migrates an older store."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

from pytest_req2rank.models import ItemResult
from pytest_req2rank.report import build_summary, summarize_run
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
            ("new", "m", "d", 1, 0.75, 2, 4, 3)]
        assert connection.execute("select task_id, sample from items where run_id = 'old'"
                                  ).fetchall() == [(None, None)]


MODELS = ("model-a", "model-b")
SOLVED = {"model-a": {"t0": (1, 1), "t1": (1, 0)}, "model-b": {"t0": (0, 0), "t1": (1, 0)}}
"""Two samples of two tasks per model: a solves 3 of 4, b 1 of 4 (pass@1 0.75 and 0.25)."""


def several_models() -> list[ItemResult]:
    return [ItemResult(item_id=f"d/{task}/s{sample}@{model}", dataset="d", task_id=task,
                       model=model, sample=sample, cluster=f"d/{task}",
                       status="success" if ok else "wrong_answer",
                       finished_at=f"{model}{task}{sample}", score=100.0 * ok)
            for model in MODELS for task, oks in SOLVED[model].items()
            for sample, ok in enumerate(oks)]


def summary_of_models() -> dict[str, object]:
    items = several_models()
    summary = summarize_run(items, item_ids=[i.item_id for i in items], nversion=None,
                            wall_time_s=1.0, seed=3)
    assert summary.by_model is not None
    return summary.model_dump(mode="json")


def per_model(summary: dict[str, object]) -> dict[str, dict[str, dict[int, float]]]:
    """Each model's pass@k as its summary in ``by_model`` has it."""
    by_model = summary["by_model"]
    assert isinstance(by_model, dict)
    return {model: {dataset: {int(k.removeprefix("pass@")): v
                              for k, v in report["values"].items()}
                    for dataset, report in m["pass_at_k"].items()}
            for model, m in by_model.items()}


def test_a_run_of_several_models_keeps_each_models_pass_at_k_never_pooled(
        tmp_path: Path) -> None:
    summary = summary_of_models()
    expected = per_model(summary)
    assert expected == {"model-a": {"d": {1: 0.75}}, "model-b": {"d": {1: 0.25}}}
    store = Store(tmp_path / "r.db")
    try:
        store.start_run(run_id="ranked", started_at="t", model=",".join(MODELS), suite="s",
                        seed=3, plan={})
        store.finish_run("ranked", finished_at="t", summary=summary)
        store.finish_run("ranked", finished_at="t2", summary=summary)  # replaced, not added
        assert store.pass_at_k_by_model("ranked") == expected
        assert store.pass_at_k("ranked") == {}  # no model of the run is "model-a,model-b"
    finally:
        store.close()
    with closing(sqlite3.connect(tmp_path / "r.db")) as connection:
        assert connection.execute(
            "select model, dataset, k, value, tasks, samples, correct from pass_at_k "
            "order by model").fetchall() == [("model-a", "d", 1, 0.75, 2, 4, 3),
                                             ("model-b", "d", 1, 0.25, 2, 4, 1)]


POOLED_SCHEMA = """
CREATE TABLE runs (run_id TEXT PRIMARY KEY, started_at TEXT, finished_at TEXT, model TEXT,
                   suite TEXT, seed INTEGER, plan TEXT, settings TEXT, summary TEXT,
                   status TEXT, isolation TEXT, sandbox TEXT, plugin_version TEXT);
CREATE TABLE items (run_id TEXT, item_id TEXT, dataset TEXT, status TEXT, pass_ratio FLOAT,
                    score FLOAT, finished_at TEXT, result TEXT, task_id TEXT, sample INTEGER,
                    PRIMARY KEY (run_id, item_id));
CREATE TABLE pass_at_k (run_id TEXT, dataset TEXT, k INTEGER, value FLOAT, tasks INTEGER,
                        samples INTEGER, correct INTEGER, PRIMARY KEY (run_id, dataset, k));
CREATE TABLE llm_cache (key TEXT PRIMARY KEY, model TEXT, created_at TEXT, completion TEXT);
"""


def test_an_older_stores_pooled_rows_become_each_models(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    summary = summary_of_models()
    single = build_summary([item("a", 0, "success"), item("a", 1, "wrong_answer")], planned=2,
                           wall_time_s=1.0).model_dump(mode="json")
    with closing(sqlite3.connect(path)) as connection:  # as the version before wrote them
        connection.executescript(POOLED_SCHEMA)
        for run_id, model, kept in (("ranked", "model-a,model-b", summary),
                                    ("single", "m", single), ("running", "m", None)):
            connection.execute("insert into runs (run_id, started_at, model, summary, status) "
                               "values (?, 't', ?, ?, 'finished')",
                               [run_id, model, None if kept is None else json.dumps(kept)])
        connection.executemany("insert into pass_at_k values (?, 'd', 1, ?, 2, ?, ?)", [
            ("ranked", 0.5, 8, 4), ("single", 0.5, 2, 1)])  # the pooled row of the ranked run
        connection.commit()
    for _ in range(2):  # a second opening finds the store migrated
        store = Store(path)
        try:
            assert store.pass_at_k_by_model("ranked") == per_model(summary)
            assert store.pass_at_k("single") == {"d": {1: 0.5}}
            assert store.pass_at_k_by_model("running") == {}
        finally:
            store.close()
    with closing(sqlite3.connect(path)) as connection:
        assert connection.execute("select run_id, model, value from pass_at_k order by "
                                  "run_id, model").fetchall() == [
            ("ranked", "model-a", 0.75), ("ranked", "model-b", 0.25), ("single", "m", 0.5)]
        tables = {row[0] for row in connection.execute(
            "select name from sqlite_master where type = 'table'")}
        assert "pass_at_k_pooled" not in tables
