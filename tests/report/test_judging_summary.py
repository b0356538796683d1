"""The panel over a run: per-judge records, agreement, α, warnings and the run score's interval."""

from __future__ import annotations

from judging.conftest import CLEAN, StubJudge, flat

from pytest_req2rank.judging import PanelConfig, judge_result
from pytest_req2rank.models import ItemResult, TestOutcome, Usage
from pytest_req2rank.report import build_summary
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
