"""The panel over a run: per-judge records, agreement, α, warnings and the run score's interval."""

from __future__ import annotations

from types import SimpleNamespace

from judging.conftest import CLEAN, StubJudge, flat

from pytest_req2rank.judging import PanelConfig, judge_result
from pytest_req2rank.models import ItemResult, TestOutcome, Usage
from pytest_req2rank.report import (
    ResultsDocument,
    RunInfo,
    build_summary,
    render_markdown,
    render_summary,
)
from pytest_req2rank.report._judging import judging_summary

DIMENSIONS = ("functionality", "quality", "logic", "security", "engineering")


def _item(name: str, *judges: StubJudge) -> ItemResult:
    item = ItemResult(item_id=f"demo/{name}", dataset="demo", task_id=name, model="fake/coder",
                      status="success", tests=[TestOutcome(name="t", status="success")],
                      code={"calc.py": CLEAN}, score=100.0, usage=Usage(calls=1))
    return judge_result(item, list(judges), PanelConfig())


def _panel(high: float, low: float) -> list[StubJudge]:
    return [StubJudge("x", flat(high)), StubJudge("y", flat(low)),
            StubJudge("z", error="invalid answer: no JSON object")]


def test_per_judge_records_agreement_and_alpha() -> None:
    items = [_item("a", *_panel(80, 60)), _item("b", *_panel(80, 60))]
    summary, warnings = judging_summary(items)
    assert summary is not None
    assert summary.judges == ["x", "y", "z"] and summary.items_judged == 2
    records = {r.judge: (r.items, r.scored, r.invalid_answers, r.failures, r.mean_overall)
               for r in summary.per_judge}
    assert records == {"x": (2, 2, 0, 0, 80.0), "y": (2, 2, 0, 0, 60.0), "z": (2, 0, 2, 0, None)}
    # population sd of 80 and 60 is 10: moderate agreement on every item
    assert summary.sigma == 10.0 and summary.agreement_counts == {"moderate": 2}
    # x always 20 above y: D_o = 400, D_e = 3200 / 12, alpha = 1 - 400 / 266.7 = -0.5
    assert summary.alpha == dict.fromkeys(DIMENSIONS, -0.5)
    assert summary.judge_dimensions == dict.fromkeys(DIMENSIONS, 70.0)
    assert warnings == ["judge z was dropped on 2 of 2 items (2 invalid answers, 0 provider failures)"]


def test_strong_disagreement_and_failed_items_are_warned_about() -> None:
    items = [_item("a", StubJudge("x", flat(90)), StubJudge("y", flat(50))),
             _item("b", StubJudge("x", error="rate_limit: retries exhausted"))]
    summary, warnings = judging_summary(items)
    assert summary is not None and summary.judge_failed == 1
    # one unit of two ratings: observed and expected disagreement are the same, alpha 0
    assert summary.alpha == dict.fromkeys(DIMENSIONS, 0.0)
    assert warnings == [
        "judge x was dropped on 1 of 2 items (0 invalid answers, 1 provider failures)",
        "1 items are judge_failed (every judge failed) and are excluded from the score",
        "judges disagreed strongly (sigma > 15) on " + ", ".join(
            f"{d} in 1 of 1 items" for d in DIMENSIONS),
    ]


def test_a_judged_static_run_gets_a_bootstrap_interval_and_role_totals() -> None:
    items = [_item(name, StubJudge("x", flat(score))) for name, score in (("a", 60), ("b", 80))]
    summary = build_summary(items, planned=2, wall_time_s=1.0, seed=3)
    assert summary.ci95 is not None and summary.ci95.method == "bootstrap-clustered"
    # functionality and logic 0.7 x 100 + 0.3 x s; the run score is the mean of the two items
    expected = [0.55 * (70 + 0.3 * s) + 0.45 * s for s in (60, 80)]
    assert summary.overall_score == round(sum(expected) / 2, 2)
    assert summary.totals_by_role["target"].calls == 2
    assert summary.totals_by_role["judges"].calls == 0
    assert summary.judging is not None and summary.judging.sigma is None
    assert summary.agreement is None


def test_each_judges_unreadable_answer_rate_over_the_answers_it_gave() -> None:
    """Unreadable answers over answers received (scored + invalid): a failed call is no
    answer, and a judge that never answered has no rate."""
    items = [
        _item("a", StubJudge("x", flat(70)), StubJudge("y", error="invalid answer: not JSON"),
              StubJudge("z", error="api_error: gave up")),
        _item("b", StubJudge("x", flat(70)), StubJudge("y", flat(60)),
              StubJudge("z", error="api_error: gave up")),
        _item("c", StubJudge("x", error="api_error: gave up"), StubJudge("y", flat(60)),
              StubJudge("z", error="timeout: twice")),
    ]
    summary, _ = judging_summary(items)
    assert summary is not None
    rates = {r.judge: (r.invalid_answers, r.failures, r.invalid_answer_rate)
             for r in summary.per_judge}
    assert rates == {"x": (0, 1, 0.0), "y": (1, 0, 0.3333), "z": (0, 3, None)}
    document = ResultsDocument(
        run=RunInfo(id="r1", seed=1, model="fake/coder", suite="dynamic", judges=["x", "y", "z"],
                    sandbox="process", plugin_version="0", started_at="t0", finished_at="t1"),
        summary=build_summary(items, planned=3, wall_time_s=1.0, seed=1), items=items)
    paths = SimpleNamespace(results="r.json", qa_log="qa.jsonl", store="s.db")
    lines = render_summary(document, paths)  # type: ignore[arg-type]
    header = next(line for line in lines if "unreadable" in line)
    assert header.split() == ["judge", "items", "scored", "invalid", "unreadable", "failed",
                              "mean", "latency"]
    rows = {line.split()[0]: line.split()[1:6] for line in lines
            if line.startswith("  ") and line.split()[0] in "xyz"}
    assert rows == {"x": ["3", "2", "0", "0.0%", "1"], "y": ["3", "2", "1", "33.3%", "0"],
                    "z": ["3", "0", "0", "n/a", "3"]}
    assert "- Judges: `x` (0.0% unreadable answers), `y` (33.3% unreadable answers), `z`" in (
        render_markdown(document).splitlines())
