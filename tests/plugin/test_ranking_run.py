"""A run of several models end to end: every model answers the same planned items
(``ITEM@MODEL``), the summary ends with the ranking table, the results JSON keeps it, the store
keeps every model's items and a resumed run keeps them; a run of one model is as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_req2rank.models import ItemId
from pytest_req2rank.report import validate_results
from pytest_req2rank.store import Store

BENCHMARK = (Path(__file__).parents[2] / "benchmarks" / "test_benchmark.py").read_text()
MODELS = ("r2r/degraded:0.3", "r2r/degraded:0.6", "r2r/reference")
RUN = ("--r2r-suite=humaneval", "--r2r-sample=8", "--r2r-seed=11", "--r2r-json=results.json",
       "--r2r-db=store.db", "-p", "no:xdist")


@pytest.fixture
def bench(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_benchmark=BENCHMARK)
    return pytester


def results(pytester: pytest.Pytester) -> dict:
    data = json.loads((pytester.path / "results.json").read_text())
    validate_results(data)
    return data


def test_three_instruments_ranked_on_one_plan(bench: pytest.Pytester) -> None:
    # repeated and comma-separated spellings together
    result = bench.runpytest(*RUN, f"--r2r-model={MODELS[0]},{MODELS[1]}",
                             f"--r2r-model={MODELS[2]}")
    assert result.ret == 1  # the instruments' wrong answers fail their items
    result.stdout.fnmatch_lines([
        "*req2rank summary*",
        f"run * | model {','.join(MODELS)} | suite humaneval | seed 11 *",
        "ranking of 3 models (paired over the same requirements):",
        "rank  95% rank  group  model *score*diff to #1*reqs",
        "   1*r2r/reference     100.0  100.0-100.0  *-  *8",
    ])
    data = results(bench)
    assert data["schema_version"] == 6
    assert data["run"]["model"] == ",".join(MODELS)
    assert data["run"]["settings"]["model"] == MODELS[0]
    assert data["run"]["settings"]["models"] == list(MODELS)
    ids = [ItemId.parse(item["item_id"]) for item in data["items"]]
    assert len(ids) == 24
    tasks = {model: [str(i.without_model) for i in ids if i.model == model] for model in MODELS}
    assert tasks[MODELS[0]] == tasks[MODELS[1]] == tasks[MODELS[2]]  # the same plan
    assert len(set(tasks[MODELS[0]])) == 8
    assert {item["model"] for item in data["items"]} == set(MODELS)
    for item in data["items"]:
        assert item["model"] == ItemId.parse(item["item_id"]).model

    ranking = data["summary"]["ranking"]
    assert ranking["paired"] is True and ranking["seed"] == 11 and ranking["level"] == 0.95
    rows = ranking["models"]
    assert rows[0]["model"] == "r2r/reference"
    assert sorted(row["model"] for row in rows) == sorted(MODELS)
    assert rows[0]["score"] == 100.0 and rows[0]["rank"] == 1 and rows[0]["diff_to_leader"] == 0
    assert all(row["requirements"] == 8 for row in rows)
    for row in rows:
        answered = [i for i in data["items"] if ItemId.parse(i["item_id"]).model == row["model"]]
        assert row["score"] == pytest.approx(
            100 * sum(i["status"] == "success" for i in answered) / len(answered))
        assert row["rank_low"] <= row["rank"] <= row["rank_high"]
        assert row["diff_low"] <= row["diff_to_leader"] <= row["diff_high"]
    assert sorted(m for group in ranking["groups"] for m in group) == sorted(MODELS)

    store = Store(bench.path / "store.db")
    try:
        assert sorted(i.item_id for i in store.items(data["run"]["id"])) == sorted(
            i["item_id"] for i in data["items"])
    finally:
        store.close()


def test_a_ranking_run_resumes_with_its_models(bench: pytest.Pytester) -> None:
    models = f"--r2r-model={MODELS[1]},{MODELS[2]}"
    bench.runpytest(*RUN, models)
    first = results(bench)
    run_id = first["run"]["id"]
    again = bench.runpytest("--r2r-suite=humaneval", "--r2r-json=results.json",
                            "--r2r-db=store.db", "-p", "no:xdist", models,
                            f"--r2r-resume={run_id}")
    again.stdout.fnmatch_lines(["*16 deselected*", "resumed: 16 items kept*"])
    resumed = results(bench)
    assert [i["item_id"] for i in resumed["items"]] == [i["item_id"] for i in first["items"]]
    assert resumed["summary"]["ranking"]["models"] == first["summary"]["ranking"]["models"]
    refused = bench.runpytest("--r2r-suite=humaneval", "--r2r-db=store.db", "-p", "no:xdist",
                              f"--r2r-model={MODELS[1]}", f"--r2r-resume={run_id}")
    assert refused.ret == 4
    both = f"{MODELS[1]},{MODELS[2]}"
    message = (f"ERROR: --r2r-resume: run {run_id} benchmarked model '{both}'; resume it with "
               f"--r2r-model={both}")
    refused.stderr.fnmatch_lines([message])


def test_a_run_of_one_model_is_as_before(bench: pytest.Pytester) -> None:
    bench.runpytest(*RUN, "--r2r-model=r2r/degraded:0.6")
    data = results(bench)
    assert data["run"]["model"] == "r2r/degraded:0.6"
    assert "models" not in data["run"]["settings"]
    assert data["summary"]["ranking"] is None
    assert all("@" not in item["item_id"] and ItemId.parse(item["item_id"]).model is None
               for item in data["items"])
    assert len(data["items"]) == 8
    assert "ranking of" not in bench.runpytest(*RUN).stdout.str()


@pytest.mark.parametrize(("args", "message"), [
    (("--r2r-model=r2r/reference,r2r/degraded:0.5", "--r2r-nversion=3"),
     ("ERROR: --r2r-model: several models are ranked on the dynamic and static suites, without "
      "--r2r-nversion (it needs one model); pass one --r2r-model, or leave --r2r-nversion out")),
    (("--r2r-model=r2r/reference", "--r2r-model=r2r/reference"),
     ("ERROR: --r2r-model: r2r/reference named more than once; name each model of a ranking "
      "run once")),
    (("--r2r-model=r2r/reference,r2r/degraded:0.5", "--r2r-submit=http://127.0.0.1:9",
      "--r2r-hub-token=t"),
     ("ERROR: --r2r-model=r2r/reference,r2r/degraded:0.5 with --r2r-submit: the hub ranks one "
      "model per submitted run; submit each model's run on its own, with one --r2r-model")),
])
def test_what_a_ranking_run_cannot_do_is_one_line(bench: pytest.Pytester, args: tuple[str, ...],
                                                  message: str) -> None:
    result = bench.runpytest("--r2r-suite=humaneval", "-p", "no:xdist", *args)
    assert result.ret == 4
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stderr.str()
