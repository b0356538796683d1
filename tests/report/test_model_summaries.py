"""A run of several models reports every metric per model: each model's summary over its own
items (``summary.by_model``) in the JSON, a row per model in the terminal and the Markdown, the
run's warnings naming the model; a baseline of several models compared by one of them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_req2rank.cli import CommandError, compared_models
from pytest_req2rank.models import ItemResult, TestOutcome, Usage
from pytest_req2rank.report import (
    ResultsDocument,
    RunInfo,
    answered_by,
    build_summary,
    compare_runs,
    rank_items,
    rank_runs,
    render_markdown,
    render_summary,
    run_models,
    summarize_run,
    validate_results,
)
from pytest_req2rank.report._run import planned_by_model
from pytest_req2rank.report._wandb import wandb_metrics

STRONG, WEAK = "openai/strong", "r2r/degraded:0.5"


def answer(task: str, status: str, model: str | None, *, tokens: int = 10,
           legacy_cluster: bool = False) -> ItemResult:
    """An item of ``task`` answered by ``model`` (``None``: a run of one model); a
    ``legacy_cluster`` is the schema-5 one, which held the model."""
    item_id = f"demo/{task}" + ("" if model is None else f"@{model}")
    ratio = {"success": 1.0, "wrong_answer": 0.5}.get(status, 0.0)
    return ItemResult(
        item_id=item_id, dataset="demo", task_id=task, model=model or "m", status=status,
        pass_ratio=ratio, judge_time_s=0.25, cluster=item_id if legacy_cluster else f"demo/{task}",
        tests=[TestOutcome(name="t0", status="success" if ratio == 1.0 else "wrong_answer")],
        score=None if status == "api_error" else (100.0 if status == "success" else 0.0),
        usage=Usage(calls=1, prompt_tokens=tokens, completion_tokens=tokens),
    )


# STRONG: 3 of 4 solved; WEAK: 1 of 3 solved, one api_error (left out of its quality)
STRONG_STATUSES = ("success", "success", "success", "wrong_answer")
WEAK_STATUSES = ("success", "wrong_answer", "wrong_answer", "api_error")


def two_models(legacy_cluster: bool = False) -> list[ItemResult]:
    """The items in plan order: each task once per model."""
    return [answer(f"t{k}", statuses[k], model, tokens=tokens, legacy_cluster=legacy_cluster)
            for k in range(4)
            for model, statuses, tokens in ((STRONG, STRONG_STATUSES, 10),
                                            (WEAK, WEAK_STATUSES, 40))]


def document(items: list[ItemResult], model: str = f"{STRONG},{WEAK}",
             run_id: str = "r1") -> ResultsDocument:
    return ResultsDocument(
        run=RunInfo(id=run_id, seed=3, model=model, suite="jsonl:demo.jsonl", sandbox="process",
                    plugin_version="0", started_at="t0", finished_at="t1"),
        summary=summarize_run(items, item_ids=[i.item_id for i in items], nversion=None,
                              wall_time_s=4.0, seed=3),
        items=items)


def test_each_model_gets_the_summary_a_run_of_it_alone_reports() -> None:
    items = two_models()
    summary = summarize_run(items, item_ids=[i.item_id for i in items], nversion=None,
                            wall_time_s=4.0, seed=3)
    by_model = summary.by_model
    assert by_model is not None and list(by_model) == [STRONG, WEAK]  # the run's order
    strong, weak = by_model[STRONG], by_model[WEAK]
    assert strong.overall_score == 75.0 and strong.ci95 is not None
    assert strong.ci95.method == "wilson"
    assert weak.overall_score == pytest.approx(33.33)  # 1 of the 3 scored
    assert (strong.items_total, strong.items_planned) == (4, 4)
    assert weak.status_counts["api_error"] == 1 and weak.status_counts["wrong_answer"] == 2
    assert strong.phase0["demo"]["accepted_at_1"] == 0.75
    assert weak.phase0["demo"]["accepted_at_1"] == pytest.approx(1 / 3)
    assert weak.phase0["demo"]["api_error_rate"] == 0.25
    assert weak.phase0["demo"]["avg_total_gen_tokens"] == 40.0
    assert strong.phase0["demo"]["throughput"] == 1.0  # 4 problems in the run's 4 s
    assert strong.pass_at_k["demo"].values == {"pass@1": 0.75}
    assert weak.metrics["eval/demo/accepted_at_1"] == pytest.approx(1 / 3)
    assert strong.totals_by_role["target"].completion_tokens == 40
    assert weak.totals_by_role["target"].completion_tokens == 160
    assert summary.totals_by_role["target"].completion_tokens == 200  # the run's: every model

    # every figure is what a run of that model alone computes over the same answers
    for model in (STRONG, WEAK):
        alone = [answer(i.task_id, i.status, None, tokens=40 if model == WEAK else 10)
                 for i in answered_by(items, model)]
        single = build_summary(alone, planned=4, wall_time_s=4.0, seed=3)
        own = by_model[model]
        assert single.by_model is None
        for field in ("overall_score", "ci95", "status_counts", "phase0", "pass_at_k", "metrics",
                      "warnings", "totals", "dimensions", "judging", "items_total"):
            assert getattr(own, field) == getattr(single, field), (model, field)


def test_warnings_name_the_model_and_nothing_is_pooled_into_one() -> None:
    summary = document(two_models()).summary
    assert summary.by_model is not None
    alert = ("ALERT: eval/demo/api_error_rate = 25.0% (normal < 1.0%, alert > 5%)")
    assert summary.by_model[WEAK].warnings == [alert]
    assert summary.by_model[STRONG].warnings == []
    assert summary.warnings == [f"{WEAK}: {alert}"]  # not the pooled 12.5 %


def test_a_model_with_no_finished_item_is_listed_and_planned_counts_come_from_the_plan() -> None:
    items = two_models()
    plan = [i.item_id for i in items] + ["demo/t4@" + STRONG, "demo/t4@" + WEAK, "demo/t0@third"]
    assert planned_by_model(plan) == {STRONG: 5, WEAK: 5, "third": 1}
    summary = summarize_run(items, item_ids=plan, nversion=None, wall_time_s=4.0, seed=3)
    assert summary.by_model is not None and list(summary.by_model) == [STRONG, WEAK, "third"]
    third = summary.by_model["third"]
    assert (third.items_total, third.items_planned, third.overall_score) == (0, 1, None)
    assert summary.by_model[STRONG].items_planned == 5


def test_a_run_of_one_model_has_no_per_model_summary() -> None:
    items = [answer(f"t{k}", s, None) for k, s in enumerate(STRONG_STATUSES)]
    assert summarize_run(items, item_ids=[i.item_id for i in items], nversion=None,
                         wall_time_s=1.0, seed=3).by_model is None


def test_schema_5_clusters_that_held_the_model_still_pair_the_models() -> None:
    ranking = rank_items(two_models(legacy_cluster=True), seed=3)
    fixed = rank_items(two_models(), seed=3)
    assert ranking is not None and fixed is not None
    assert ranking == fixed
    assert {row.model: row.requirements for row in ranking.models} == {STRONG: 4, WEAK: 3}


class _Paths:
    results = Path("results.json")
    qa_log = Path("qa.jsonl")
    store = Path("store.db")


def test_the_terminal_shows_a_row_per_model_instead_of_pooled_figures() -> None:
    doc = document(two_models())
    validate_results(doc.model_dump(mode="json"))
    lines = render_summary(doc, _Paths())
    assert not any(line.startswith("score: ") for line in lines)  # no pooled score
    start = lines.index("score by model (100 x accepted@1, each model over its own items):")
    assert [line.split() for line in lines[start + 1:start + 4]] == [
        ["model", "score", "95%", "CI", "method", "items", "statuses"],
        [STRONG, "75.0", "30.1-95.4", "wilson", "4/4", "3", "success,", "1", "wrong_answer"],
        [WEAK, "33.3", "6.2-79.2", "wilson", "4/4", "1", "success,", "2", "wrong_answer,", "1",
         "api_error"],
    ]
    assert "items: 8/8 finished, 2 models together (4 success, 3 wrong_answer, 1 api_error) " \
           "in 4.0 s" in lines
    table = lines.index("[demo] by model")
    rows = [line.split() for line in lines[table + 1:table + 10]]
    assert rows[0][:3] == ["quality", "accepted@1", "pass@1"]
    assert rows[1][:3] == [STRONG, "75.0%", "75.0%"] and rows[2][:3] == [WEAK, "33.3%", "33.3%"]
    assert rows[3][0] == "errors" and rows[3][-2:] == ["api_error", "sandbox_error"]
    assert rows[5][0] == WEAK and rows[5][-2:] == ["25.0%", "0.0%"]
    assert rows[6][:2] == ["cost", "avg"] and rows[7][:2] == [STRONG, "10.0"]
    assert rows[8][:2] == [WEAK, "40.0"]
    assert not any(line.startswith("[demo]  ") or line == "[demo]" for line in lines)
    calls = lines.index(
        "model calls of all models 8 | prompt tokens 200 | completion tokens 200 | cost unknown")
    assert lines[calls + 1:calls + 3] == [
        f"  target {STRONG}: 4 | prompt tokens 40 | completion tokens 40 | cost unknown",
        f"  target {WEAK}: 4 | prompt tokens 160 | completion tokens 160 | cost unknown"]
    assert f"warning: {WEAK}: ALERT: eval/demo/api_error_rate = 25.0% (normal < 1.0%, " \
           "alert > 5%)" in lines


def test_the_markdown_report_has_a_row_per_model() -> None:
    text = render_markdown(document(two_models()))
    assert f"- Models: `{STRONG}`, `{WEAK}`" in text
    assert "| model | score | 95% CI | method | items | statuses |" in text
    assert f"| `{STRONG}` | 75.0 | 30.1–95.4 | wilson | 4/4 | 3 success, 1 wrong_answer |" in text
    assert "**" not in text.split("## Score")[1].split("##")[0]  # no pooled headline score
    assert "| Dataset | Model | accepted@1 |" in text
    assert f"| demo | `{STRONG}` | 75.0% | 0.875 |" in text
    assert f"| demo | `{WEAK}` | 33.3% | 0.667 |" in text
    assert f"| demo | `{WEAK}` | 0.0% | 0.0% | 0.0% | 0.0% | 66.7% | 33.3% | 25.0% | 0.0% |" in text
    assert f"| demo | `{WEAK}` | 40.0 |" in text
    assert f"| target `{STRONG}` | 4 | 40 | 40 | unknown |" in text
    assert "| demo | 58.3%" not in text  # the pooled accepted@1 of 7 scored problems


def test_a_baseline_of_several_models_is_compared_by_one_of_them() -> None:
    baseline = document(two_models())
    assert run_models(baseline) == [STRONG, WEAK]
    candidate = [answer(f"t{k}", "success", None) for k in range(4)]
    gate, report = compare_runs(baseline, candidate, path="b.json", max_drop=0, seed=3,
                                model=STRONG)
    assert report is not None and report.n_pairs == 4
    assert (report.baseline_score, report.candidate_score) == (75.0, 100.0) and gate.passed
    gate, report = compare_runs(baseline, candidate, path="b.json", max_drop=0, seed=3,
                                model=WEAK)
    assert report is not None and report.n_pairs == 3  # its api_error is no pair
    assert report.baseline_score == pytest.approx(33.33, abs=0.01)
    gated = document(candidate, model=WEAK, run_id="r2")
    gated = gated.model_copy(update={"summary": gated.summary.model_copy(
        update={"baseline": report})})
    text = render_markdown(gated, baseline)  # the baseline's figures are WEAK's own
    assert "| demo accepted_at_1 | 0.333 | 1.000 | +0.667 |" in text
    assert "| demo pass_ratio_mean | 0.667 | 1.000 | +0.333 |" in text


@dataclass
class _Runs:
    multi: ResultsDocument
    other: ResultsDocument
    single: ResultsDocument


@pytest.fixture
def runs() -> _Runs:
    single = [answer(f"t{k}", "success", None) for k in range(4)]
    return _Runs(document(two_models()), document(two_models(), run_id="r2"),
                 document(single, model=STRONG, run_id="r3"))


def test_compare_picks_the_model_of_a_run_of_several(runs: _Runs) -> None:
    assert compared_models(runs.single, runs.single, None) == (None, None)
    assert compared_models(runs.multi, runs.single, None) == (STRONG, None)
    assert compared_models(runs.single, runs.multi, None) == (None, STRONG)
    assert compared_models(runs.multi, runs.single, WEAK) == (WEAK, None)
    assert compared_models(runs.multi, runs.other, WEAK) == (WEAK, WEAK)


@pytest.mark.parametrize(("pick", "model", "message"), [
    ("both", None, (f"runs r1 and r2 both ranked several models; compare one model's answers "
                   f"with --model=MODEL (of r1: {STRONG}, {WEAK}), or rank them all with "
                   "`req2rank rank`")),
    ("multi", "nosuch", (f"run r1 ranked {STRONG}, {WEAK}, not nosuch; name the model to "
                        "compare with --model=MODEL (one of them)")),
    ("single", "x", ("--model: runs r3 and r3 each benchmarked one model; --model picks one of "
                    "a run of several, leave it out")),
])
def test_compare_says_in_one_line_which_model_to_name(runs: _Runs, pick: str,
                                                      model: str | None, message: str) -> None:
    pair = {"both": (runs.multi, runs.other), "multi": (runs.multi, runs.single),
            "single": (runs.single, runs.single)}[pick]
    with pytest.raises(CommandError) as raised:
        compared_models(*pair, model)
    assert str(raised.value) == message


def test_a_single_model_the_multi_run_lacks_is_named(runs: _Runs) -> None:
    other = runs.single.model_copy(update={"run": runs.single.run.model_copy(
        update={"model": "gpt-x"})})
    with pytest.raises(CommandError, match=f"^run r1 ranked {STRONG}, {WEAK}, not gpt-x; "):
        compared_models(runs.multi, other, None)


def test_wandb_logs_each_models_own_figures() -> None:
    metrics = wandb_metrics(document(two_models()))
    assert metrics[f"model/{STRONG}/score"] == 75.0
    assert metrics[f"model/{WEAK}/eval/demo/api_error_rate"] == 0.25
    assert metrics[f"model/{WEAK}/status/api_error"] == 1
    assert metrics[f"model/{STRONG}/completion_tokens"] == 40
    assert metrics[f"model/{STRONG}/items_planned"] == 4
    single = [answer(f"t{k}", s, None) for k, s in enumerate(STRONG_STATUSES)]
    assert not any(name.startswith("model/") for name in wandb_metrics(document(single, STRONG)))


def test_rank_gives_a_run_of_several_models_a_row_per_model(runs: _Runs) -> None:
    ranked = rank_runs([runs.multi, runs.single], seed=3)
    assert ranked.why.startswith("paired")  # the same tasks, whichever model answered them
    assert ranked.labels == {f"{STRONG} (r1)": "r1", WEAK: "r1", f"{STRONG} (r3)": "r3"}
    scores = {row.model: row.score.estimate for row in ranked.ranking.models}
    assert scores == {f"{STRONG} (r3)": 100.0, f"{STRONG} (r1)": 75.0,
                      WEAK: pytest.approx(100 / 3)}
