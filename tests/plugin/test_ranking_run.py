"""A run of several models end to end: every model answers the same planned items
(``ITEM@MODEL``), the summary ends with the ranking table, the results JSON keeps it, the store
keeps every model's items and a resumed run keeps them; the ranking reaches the HTML report,
the JUnit XML test suite's properties, the store's ``rankings`` table and ``req2rank runs``
and ``show``; a run of one model is as before."""

from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as ET
from itertools import pairwise
from pathlib import Path

import pytest

from pytest_req2rank.cli import main
from pytest_req2rank.models import ItemId
from pytest_req2rank.report import RankingSection, ranking_lines, section_ranking, validate_results
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
        # every model's answer to a task measures the same requirement
        assert item["cluster"] == str(ItemId.parse(item["item_id"]).without_model)
    found = data["summary"]["detectable_difference"]
    assert found["basis"] == "paired" and found["requirements"] == 8
    result.stdout.fnmatch_lines(["detectable difference: * (8 requirements, *"])

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


def suite_properties(path: Path) -> dict[str, str]:
    """The JUnit XML file's test suite properties."""
    suite = ET.parse(path).getroot().find("testsuite")
    assert suite is not None
    return {p.get("name", ""): p.get("value", "")
            for p in suite.findall("properties/property")}


def test_the_ranking_reaches_the_html_report_junit_xml_and_the_store(
        bench: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    result = bench.runpytest(*RUN, f"--r2r-model={','.join(MODELS)}", "--r2r-html",
                             "--junitxml=junit.xml")
    assert result.ret == 1
    data = results(bench)
    run_id = data["run"]["id"]
    ranking = data["summary"]["ranking"]
    rows = ranking["models"]
    best_first = [row["model"] for row in rows]

    page = (bench.path / "results.html").read_text()
    table = page[page.index('<table id="ranking-table">'):]
    table = table[:table.index("</table>")]
    shown = [html.unescape(m) for m in re.findall(r"<tr class=\"group-\d+\">(?:<td[^>]*>[^<]*</td>"
                                                  r"){3}<td>([^<]*)</td>", table)]
    assert shown == best_first
    assert page.count('data-plot="ranking"') == 1

    properties = suite_properties(bench.path / "junit.xml")
    assert properties["r2r_ranking_models"] == ",".join(best_first)
    assert properties["r2r_ranking_paired"] == "true"
    for row in rows:
        name = f"r2r_ranking/{row['model']}"
        assert {key: properties[f"{name}/{key}"] for key in (
            "rank", "rank_low", "rank_high", "group", "requirements")} == {
            key: str(row[key]) for key in ("rank", "rank_low", "rank_high", "group",
                                           "requirements")}
        for key in ("score", "score_low", "score_high", "diff_to_leader", "diff_low",
                    "diff_high"):
            assert float(properties[f"{name}/{key}"]) == pytest.approx(row[key], abs=0.005)

    store = Store(bench.path / "store.db")
    try:
        stored = store.ranking(run_id)
    finally:
        store.close()
    assert [(r["model"], r["position"], r["rank"], r["rank_low"], r["rank_high"],
             r["rank_group"], r["requirements"], r["paired"]) for r in stored] == [
        (row["model"], position, row["rank"], row["rank_low"], row["rank_high"], row["group"],
         row["requirements"], 1) for position, row in enumerate(rows, start=1)]
    assert [r["score"] for r in stored] == [row["score"] for row in rows]

    capsys.readouterr()
    db = str(bench.path / "store.db")
    assert main(["runs", "--db", db]) == 0
    (line,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith(run_id)]
    order = best_first[0] + "".join(
        f" {'=' if row['group'] == before['group'] else '>'} {row['model']}"
        for before, row in pairwise(rows))
    assert f"  {order}  " in line
    assert main(["show", run_id, "--db", db]) == 0
    out = capsys.readouterr().out.splitlines()
    start = out.index(next(line for line in out if line.startswith("ranking of 3 models")))
    table_lines = ranking_lines(section_ranking(RankingSection.model_validate(ranking)))
    assert out[start + 1:start + 1 + len(table_lines)] == table_lines


def test_the_header_counts_tasks_samples_and_models(bench: pytest.Pytester) -> None:
    result = bench.runpytest("--r2r-suite=humaneval", "--r2r-sample=2", "--r2r-seed=11",
                             "--r2r-samples-per-task=2", "--r2r-temperature=0.5",
                             f"--r2r-model={MODELS[1]},{MODELS[2]}", "-p", "no:xdist")
    result.stdout.fnmatch_lines(
        ["req2rank: run * | suite humaneval (8 items: 2 tasks x 2 samples x 2 models) | *"])
    data = json.loads(next((bench.path / ".req2rank" / "runs").glob("*/results.json")).read_text())
    clusters = {item["cluster"] for item in data["items"]}
    assert len(clusters) == 2 and all("@" not in cluster for cluster in clusters)


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
    again = bench.runpytest(*RUN, "--junitxml=junit.xml")
    assert "ranking of" not in again.stdout.str()
    assert not any(name.startswith("r2r_ranking")
                   for name in suite_properties(bench.path / "junit.xml"))


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


def test_two_instruments_each_get_their_own_figures(bench: pytest.Pytester,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    pair = ("r2r/degraded:0.5", "r2r/reference")
    result = bench.runpytest(*RUN, f"--r2r-model={','.join(pair)}")
    data = results(bench)
    by_model = data["summary"]["by_model"]
    assert list(by_model) == list(pair)
    for model in pair:
        answered = [i for i in data["items"] if i["model"] == model]
        solved = sum(i["status"] == "success" for i in answered)
        own = by_model[model]
        assert (own["items_total"], own["items_planned"]) == (8, 8)
        assert own["overall_score"] == pytest.approx(100 * solved / 8)
        assert own["phase0"]["humaneval"]["accepted_at_1"] == pytest.approx(solved / 8)
        assert own["pass_at_k"]["humaneval"]["values"]["pass@1"] == pytest.approx(solved / 8)
        assert own["status_counts"]["success"] == solved
        assert own["totals_by_role"]["target"]["calls"] == 8
        row = next(r for r in data["summary"]["ranking"]["models"] if r["model"] == model)
        assert row["score"] == own["overall_score"]
    assert by_model["r2r/reference"]["overall_score"] == 100.0
    weak = by_model["r2r/degraded:0.5"]
    assert weak["overall_score"] < 100.0  # the seed draws a mutant for some of its items
    assert all("@" not in item["cluster"] for item in data["items"])  # one requirement, any model

    lines = result.outlines
    assert not any(line.startswith("score: ") for line in lines)
    ci = {m: f"{by_model[m]['ci95']['low']:.1f}-{by_model[m]['ci95']['high']:.1f}" for m in pair}
    result.stdout.fnmatch_lines([
        "score by model (100 x accepted@1, each model over its own items):",
        "  model *score*95% CI*method*items*statuses",
        f"  r2r/degraded:0.5 *{weak['overall_score']:.1f} *{ci[pair[0]]}  wilson*8/8  *",
        f"  r2r/reference *100.0 *{ci[pair[1]]}  wilson*8/8  8 success",
        "items: 16/16 finished, 2 models together (*) in *",
        "[[]humaneval[]] by model",
        "  quality *accepted@1*pass@1*",
        f"  r2r/degraded:0.5 *{100 * weak['phase0']['humaneval']['accepted_at_1']:.1f}%*",
        "  r2r/reference *100.0%*100.0%*",
        "model calls of all models 16 (answered offline: no tokens, no cost)",
        "  target r2r/degraded:0.5: 8 (answered offline: no tokens, no cost)",
        "  target r2r/reference: 8 (answered offline: no tokens, no cost)",
    ])
    markdown = (bench.path / "report.md").read_text()
    assert "- Models: `r2r/degraded:0.5`, `r2r/reference`" in markdown
    assert (f"| `r2r/degraded:0.5` | {weak['overall_score']:.1f} | "
            f"{ci[pair[0]].replace('-', '–')} | wilson | 8/8 |") in markdown
    assert "| humaneval | `r2r/reference` | 100.0% | 1.000 | 1.000 | 1.000 | 100.0% |" in markdown

    # one of its models gated against its own answers there: the same answers, no regression
    gated = bench.runpytest("--r2r-json=gated.json", "--r2r-db=store.db", "-p", "no:xdist",
                            "--r2r-model=r2r/reference", "--r2r-baseline=results.json")
    gated.stdout.fnmatch_lines([
        ("req2rank: baseline gate against *results.json (run *): reusing its --r2r-suite=humaneval"
        ", * | compared with its answers of r2r/reference (it ranked 2 models)"),
        ("baseline * baseline 100.0 | candidate 100.0 | difference +0.0 (CI95 +0.0 to +0.0, 8 "
        "pairs)"),
        "gate baseline: PASSED*"])
    assert gated.ret == 0
    refused = bench.runpytest("--r2r-db=store.db", "-p", "no:xdist",
                              "--r2r-model=r2r/degraded:0.9", "--r2r-baseline=results.json")
    assert refused.ret == 4
    refused.stderr.fnmatch_lines([
        ("ERROR: --r2r-baseline: *results.json ranked several models (r2r/degraded:0.5, "
        "r2r/reference), not r2r/degraded:0.9; gate one of them against its own answers there "
        "(--r2r-model=r2r/degraded:0.5), or pass the results of a run of r2r/degraded:0.9")])

    # req2rank compare: the gated run against the ranking run's answers of one model
    multi, single = data["run"]["id"], json.loads(
        (bench.path / "gated.json").read_text())["run"]["id"]
    db = str(bench.path / "store.db")
    capsys.readouterr()  # the pytest runs' output
    assert main(["compare", multi, single, "--db", db]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"baseline  {multi} | model r2r/reference (of {','.join(pair)}) |")
    assert "difference +0.0" in out[2]
    assert main(["compare", single, multi, "--db", db, "--model=r2r/degraded:0.5"]) in (0, 6)
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith(f"candidate {multi} | model r2r/degraded:0.5 (of ")
    assert main(["compare", single, multi, "--db", db, "--model=nosuch"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"req2rank compare: error: run {multi} ranked r2r/degraded:0.5, r2r/reference, not "
        "nosuch; name the model to compare with --model=MODEL (one of them)")

    # req2rank runs: no pooled score for the ranking run, each model's in its models' order
    assert main(["runs", "--db", db]) == 0
    listed = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines()}
    best_first = [row["model"] for row in data["summary"]["ranking"]["models"]]
    assert listed[multi][-3:] == [
        "/".join(f"{by_model[m]['overall_score']:.1f}" for m in best_first), "2", "models"]
    assert listed[multi][4] == best_first[0]
    assert listed[single][-2:] == ["100.0", f"{by_model['r2r/reference']['ci95']['low']:.1f}-100.0"]

    # the store's pass@k: a row per model, as by_model has it, no pooled row
    store = Store(bench.path / "store.db")
    try:
        stored = store.pass_at_k_by_model(multi)
    finally:
        store.close()
    assert stored == {model: {"humaneval": {1: pytest.approx(
        by_model[model]["pass_at_k"]["humaneval"]["values"]["pass@1"])}} for model in pair}

    # req2rank report: the HTML report of the stored run shows each model's score
    assert main(["report", multi, "--db", db, "--html", str(bench.path / "again.html")]) == 0
    capsys.readouterr()
    page = (bench.path / "again.html").read_text()
    scores = page[page.index('<table id="model-scores">'):]
    scores = scores[:scores.index("</table>")]
    shown = re.findall(r'<tr><td>([^<]*)</td><td class="num">([^<]*)</td>', scores)
    assert [(html.unescape(model), score) for model, score in shown] == [
        (model, f"{by_model[model]['overall_score']:.1f}") for model in pair]

    # req2rank rank: a row per model of the ranking run, beside the gated run of one model
    assert main(["rank", multi, single, "--db", db]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2].startswith("paired: the runs share their plan")
    table = "\n".join(out[5:8])
    assert f"r2r/reference ({multi})" in table and f"r2r/reference ({single})" in table
    weak_row = next(line.split() for line in out[5:8] if "r2r/degraded:0.5" in line)
    assert weak_row[4] == f"{weak['overall_score']:.1f}"

    # req2rank plan --from it: its models' paired spread, the cost of one model
    assert main(["plan", "--difference", "20", "--from", multi, "--db", db]) == 0
    out = capsys.readouterr().out.splitlines()
    found = data["summary"]["detectable_difference"]
    assert found["basis"] == "paired"
    assert out[1].startswith(f"spread: sd {found['sd']:.1f} points of a per-requirement "
                             f"difference, from run {multi}'s 2 models, paired on 8 requirements")
