"""Judging a finished item: what is judged, and what the panel's outcome does to its score."""

from __future__ import annotations

from pytest_req2rank.judging import PanelConfig, judge_result
from pytest_req2rank.models import ItemResult, TestOutcome

from .conftest import CLEAN, StubJudge, flat


def _item(status: str = "wrong_answer", code: dict[str, str] | None = None) -> ItemResult:
    tests = [TestOutcome(name="a", status="success"), TestOutcome(name="b", status="wrong_answer")]
    return ItemResult(item_id="demo/t", dataset="demo", task_id="t", model="fake/coder",
                      status=status, tests=tests, code={"calc.py": CLEAN} if code is None else code,
                      score=0.0, prompt="Write add(a, b).")


def test_the_panel_score_replaces_the_execution_score() -> None:
    judged = judge_result(_item(), [StubJudge("x", flat(80)), StubJudge("y", flat(60))],
                          PanelConfig())
    assert [v.judge for v in judged.judges] == ["x", "y"]
    assert judged.panel is not None and judged.panel.execution_ratio == 0.5
    # functionality and logic: 0.7 x 50 + 0.3 x 70 = 56; the rest 70
    assert judged.score == 62.3  # .3 x 56 + .25 x 70 + .25 x 56 + .2 x 70


def test_every_judge_failing_leaves_the_item_unscored() -> None:
    judged = judge_result(_item(), [StubJudge("x", error="invalid answer: not JSON")],
                          PanelConfig())
    assert judged.panel is not None and judged.panel.status == "judge_failed"
    assert judged.score is None


def test_infrastructure_failures_and_answers_without_code_are_not_judged() -> None:
    judge = StubJudge("x", flat(90))
    for item in (_item("api_error"), _item("sandbox_error"), _item("syntax_error", code={})):
        assert judge_result(item, [judge], PanelConfig()) == item
    assert judge.cases == []
    assert judge_result(_item(), [], PanelConfig()) == _item()
