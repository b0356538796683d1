"""judge_item: concurrency, self-judging, dropped judges, the panel rules and the execution blend.

Every expected number is worked out by hand in the comments (default weights
.3/.25/.25/.1/.1, execution weight .7 unless said otherwise).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import pytest

from pytest_req2rank.judging import LLMJudge, PanelConfig, aggregate_verdicts, blend
from pytest_req2rank.judging._panel import judge_item
from pytest_req2rank.judging._static import StaticJudge
from pytest_req2rank.models import STATIC_JUDGE
from pytest_req2rank.scoring import score_panel

from .conftest import StubJudge, flat, make_case, passing

J1 = {"functionality": 80, "quality": 70, "logic": 60, "security": 90, "engineering": 50}
J2 = {"functionality": 90, "quality": 80, "logic": 70, "security": 100, "engineering": 60}
DEFAULT = PanelConfig()


def test_two_judges_are_averaged_without_trimming() -> None:
    # σ 5 on every dimension → high; two judges never trim.
    # overall .3·85 + .25·75 + .25·65 + .1·95 + .1·55 = 75.5; judges 70.5 and 80.5:
    # sd 5, margin 1.96·5/√2 = 6.93 → 68.57 … 82.43.
    verdicts, panel = judge_item(make_case(), [StubJudge("a", J1), StubJudge("b", J2)], DEFAULT)
    assert [v.overall for v in verdicts] == [70.5, 80.5]
    assert panel.status == "scored" and panel.n_judges == 2 and not panel.trimmed
    assert (
        panel.dimensions
        == panel.judge_dimensions
        == {
            "functionality": 85.0,
            "quality": 75.0,
            "logic": 65.0,
            "security": 95.0,
            "engineering": 55.0,
        }
    )
    assert (panel.overall, panel.ci95, panel.agreement, panel.sigma) == (
        75.5,
        (68.6, 82.4),
        "high",
        5.0,
    )
    assert panel.warnings == [] and panel.execution_ratio is None


def test_three_judges_in_low_agreement_are_not_trimmed() -> None:
    # 20/50/90 on every dimension: mean 53.33, σ √(2466.67/3) = 28.67 > 15 → low, no trimming;
    # margin 1.96·28.67/√3 = 32.45 → 20.85 … 85.75.
    judges = [StubJudge("a", flat(20)), StubJudge("b", flat(50)), StubJudge("c", flat(90))]
    _, panel = judge_item(make_case(), judges, DEFAULT)
    assert (panel.overall, panel.agreement, panel.trimmed, panel.n_judges) == (
        53.3,
        "low",
        False,
        3,
    )
    assert panel.dimensions == flat(53.3) and panel.ci95 == (20.9, 85.7)
    assert panel.sigma == 28.67
    assert len(panel.warnings) == 5
    assert panel.warnings[0] == "low judge agreement on functionality (sigma 28.7 > 15)"


def test_three_agreeing_judges_are_trimmed_before_and_after_the_blend() -> None:
    # 70/80/90: σ 8.16 → moderate → trim to the middle judge (80), no margin.
    # Blend at ratio 1: functionality and logic .7·100 + .3·80 = 94;
    # overall .3·94 + .25·80 + .25·94 + .1·80 + .1·80 = 87.7.
    judges = [StubJudge("a", flat(70)), StubJudge("b", flat(80)), StubJudge("c", flat(90))]
    _, panel = judge_item(make_case(ratio=1.0, execution=passing("t")), judges, DEFAULT)
    assert (panel.agreement, panel.trimmed) == ("moderate", True)
    assert panel.judge_dimensions == flat(80.0)
    assert panel.dimensions == {**flat(80.0), "functionality": 94.0, "logic": 94.0}
    assert (panel.overall, panel.ci95) == (87.7, (87.7, 87.7))


def test_one_judge_has_no_margin_and_is_blended_70_30() -> None:
    # ratio .25 → anchor 25; functionality and logic .7·25 + .3·60 = 35.5;
    # overall .3·35.5 + .25·60 + .25·35.5 + .1·60 + .1·60 = 46.525 → 46.5.
    _, panel = judge_item(make_case(ratio=0.25), [StubJudge("a", flat(60))], DEFAULT)
    assert panel.judge_dimensions == flat(60.0)
    assert panel.dimensions == {**flat(60.0), "functionality": 35.5, "logic": 35.5}
    assert (panel.overall, panel.ci95, panel.sigma, panel.agreement) == (
        46.5,
        (46.5, 46.5),
        0.0,
        "high",
    )
    assert (panel.execution_ratio, panel.execution_weight) == (0.25, 0.7)


def test_the_blend_applies_per_judge_before_the_interval() -> None:
    # ratio .5, anchor 50: judge 1 functionality 35 + 24 = 59, logic 35 + 18 = 53;
    # judge 2 functionality 35 + 27 = 62, logic 35 + 21 = 56.
    # overall .3·60.5 + .25·75 + .25·54.5 + .1·95 + .1·55 = 65.525 → 65.5;
    # judges 62.45 and 68.6: sd 3.075, margin 1.96·3.075/√2 = 4.26 → 61.24 … 69.76.
    _, panel = judge_item(make_case(ratio=0.5), [StubJudge("a", J1), StubJudge("b", J2)], DEFAULT)
    assert panel.dimensions == {
        "functionality": 60.5,
        "quality": 75.0,
        "logic": 54.5,
        "security": 95.0,
        "engineering": 55.0,
    }
    assert panel.judge_dimensions["functionality"] == 85.0
    assert (panel.overall, panel.ci95) == (65.5, (61.2, 69.8))


def test_the_execution_weight_is_configurable() -> None:
    # weight .5, ratio 1: functionality and logic .5·100 + .5·60 = 80;
    # overall .3·80 + .25·60 + .25·80 + .1·60 + .1·60 = 71.
    _, panel = judge_item(
        make_case(ratio=1.0), [StubJudge("a", flat(60))], PanelConfig(execution_weight=0.5)
    )
    assert (panel.dimensions["functionality"], panel.overall, panel.execution_weight) == (
        80.0,
        71.0,
        0.5,
    )


def test_without_a_test_the_judges_decide_alone() -> None:
    _, panel = judge_item(make_case(ratio=None), [StubJudge("a", J1), StubJudge("b", J2)], DEFAULT)
    assert panel.dimensions == panel.judge_dimensions and panel.overall == 75.5


def test_custom_weights_apply_to_verdicts_and_panel() -> None:
    weights = {
        "functionality": 0.5,
        "quality": 0.2,
        "logic": 0.2,
        "security": 0.05,
        "engineering": 0.05,
    }
    # .5·80 + .2·70 + .2·60 + .05·90 + .05·50 = 73
    verdicts, panel = judge_item(make_case(), [StubJudge("a", J1)], PanelConfig(weights=weights))
    assert verdicts[0].overall == panel.overall == 73.0


def test_a_dropped_judge_is_kept_and_the_rest_decide() -> None:
    judges = [
        StubJudge("a", J1),
        StubJudge("bad", error="invalid answer: missing 'logic'"),
        StubJudge("b", J2),
    ]
    verdicts, panel = judge_item(make_case(), judges, DEFAULT)
    assert [v.judge for v in verdicts] == ["a", "bad", "b"]
    assert verdicts[1].scores is None and verdicts[1].overall is None
    assert (panel.n_judges, panel.overall) == (2, 75.5)
    assert panel.warnings == ["judge bad dropped: invalid answer: missing 'logic'"]


def test_every_judge_failing_makes_the_item_judge_failed() -> None:
    judges = [StubJudge("a", error="timeout: slow"), StubJudge("b", crash=True)]
    verdicts, panel = judge_item(make_case(ratio=0.5), judges, DEFAULT)
    assert verdicts[1].error == "internal_error: RuntimeError: stub judge crashed"
    assert panel.status == "judge_failed" and panel.overall is None and panel.n_judges == 0
    assert (panel.dimensions, panel.judge_dimensions, panel.ci95, panel.agreement, panel.sigma) == (
        {},
        {},
        None,
        None,
        None,
    )
    assert panel.warnings[-1] == "every judge failed: the item is excluded from the score"
    assert panel.execution_ratio == 0.5


def test_judges_run_concurrently() -> None:
    # Each judge waits until all three have started: run one after another, they would time out.
    barrier = threading.Barrier(3, timeout=10)
    judges = [StubJudge(name, flat(70), barrier=barrier) for name in ("a", "b", "c")]
    verdicts, panel = judge_item(make_case(), judges, DEFAULT)
    assert [v.error for v in verdicts] == [None, None, None] and panel.n_judges == 3


def test_each_judge_sees_the_case_and_nothing_else() -> None:
    case = make_case()
    judges = [StubJudge("a", J1), StubJudge("b", J2)]
    judge_item(case, judges, DEFAULT)
    assert [j.cases for j in judges] == [[case], [case]]


def test_self_judging_is_flagged() -> None:
    judges = [StubJudge("openai/gpt-4o-mini", J1), StubJudge("anthropic/claude-sonnet-4-5", J2)]
    verdicts, panel = judge_item(make_case(target="gpt-4o"), judges, DEFAULT)
    assert [v.self_judging for v in verdicts] == [True, False] and panel.n_judges == 2


def test_self_judging_can_be_excluded() -> None:
    own, other = StubJudge("openai/gpt-4o-mini", J1), StubJudge("anthropic/claude-sonnet-4-5", J2)
    config = PanelConfig(exclude_self_judging=True)
    verdicts, panel = judge_item(make_case(target="gpt-4o"), [own, other], config)
    assert own.cases == [] and [v.judge for v in verdicts] == [other.name]
    assert panel.overall == 80.5 and panel.warnings == []


def test_excluding_every_judge_falls_back_to_all_of_them() -> None:
    judges = [StubJudge("openai/gpt-4o-mini", J1), StubJudge("openai/o3", J2)]
    config = PanelConfig(exclude_self_judging=True)
    verdicts, panel = judge_item(make_case(target="gpt-4o"), judges, config)
    assert [v.self_judging for v in verdicts] == [True, True] and panel.n_judges == 2
    assert panel.warnings == [
        "every judge is of the target's model family: kept despite the exclusion of self-judging"
    ]


def test_stored_verdicts_give_the_same_result() -> None:
    config = PanelConfig(exclude_self_judging=True)
    case = make_case(ratio=0.5, target="gpt-4o")
    judges = [
        StubJudge("openai/o3", J1),
        StubJudge("gpt-4.1", J2),
        StubJudge("x", error="api_error: 500"),
    ]
    verdicts, panel = judge_item(case, judges, config)
    stored = [type(v).model_validate_json(v.model_dump_json()) for v in verdicts]
    assert aggregate_verdicts(stored, case.execution_ratio, config) == panel


def test_the_static_judge_and_two_llm_judges_on_one_item(
    fake_judge: Callable[..., LLMJudge],
) -> None:
    answer = json.dumps({"scores": J1, "rationale": "ok"})
    llms = [
        fake_judge([{"text": answer}], name="judge-a"),
        fake_judge([{"text": f"```json\n{answer}\n```"}], name="judge-b"),
    ]
    verdicts, panel = judge_item(
        make_case(ratio=1.0, execution=passing("t")), [StaticJudge(), *llms], DEFAULT
    )
    assert [v.judge for v in verdicts] == [STATIC_JUDGE, "fake/judge-a", "fake/judge-b"]
    assert all(v.scores is not None for v in verdicts) and panel.n_judges == 3
    assert panel.dimensions["functionality"] == pytest.approx(
        0.7 * 100 + 0.3 * panel.judge_dimensions["functionality"], abs=0.051
    )


def test_blend_by_hand() -> None:
    assert blend(J1, 0.5, 0.7) == {**J1, "functionality": 59.0, "logic": 53.0}
    assert blend(J1, None, 0.7) == J1
    assert blend(J1, 0.0, 1.0) == {**J1, "functionality": 0.0, "logic": 0.0}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"execution_weight": 1.5}, r"execution weight must be a number from 0 to 1, got 1\.5"),
        ({"execution_weight": True}, "execution weight must be a number"),
        ({"weights": {"functionality": 1.0}}, "weights lacks dimension"),
    ],
)
def test_bad_panel_configs_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PanelConfig(**options)


def test_an_empty_panel_or_a_bad_ratio_is_refused() -> None:
    with pytest.raises(ValueError, match="the panel has no judge"):
        judge_item(make_case(), [], DEFAULT)
    with pytest.raises(ValueError, match="execution ratio must be from 0 to 1"):
        aggregate_verdicts([], 1.2, DEFAULT)


def test_score_panel_trim_override() -> None:
    rows = [flat(20), flat(50), flat(90)]
    assert not score_panel(rows).trimmed
    forced = score_panel(rows, trim=True)
    assert forced.trimmed and forced.overall == 50.0 and forced.ci95 == (50.0, 50.0)
    assert not score_panel([flat(70), flat(80), flat(90)], trim=False).trimmed
    with pytest.raises(ValueError, match="trimming needs at least 3 judges, got 2"):
        score_panel(rows[:2], trim=True)
