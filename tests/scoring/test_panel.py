"""score_panel against hand-computed panels: agreement bands, trimming, weights, CI95, validation."""

from __future__ import annotations

import dataclasses
import math

import pytest

from pytest_req2rank.models import DIMENSIONS
from pytest_req2rank.scoring import agreement_band, score_panel
from pytest_req2rank.scoring._panel import PanelScore

F, Q, L, S, E = DIMENSIONS


def judge(f: float, q: float, l: float, s: float, e: float) -> dict[str, float]:
    return {F: f, Q: q, L: l, S: s, E: e}


def flat(score: float) -> dict[str, float]:
    return judge(score, score, score, score, score)


def test_dimensions_are_the_issue_five_in_order() -> None:
    assert DIMENSIONS == ("functionality", "quality", "logic", "security", "engineering")


def test_two_judges_are_never_trimmed() -> None:
    result = score_panel([judge(80, 70, 90, 85, 75), judge(60, 90, 70, 95, 85)])

    assert result.dimensions == {F: 70.0, Q: 80.0, L: 80.0, S: 90.0, E: 80.0}
    # .3*70 + .25*80 + .25*80 + .1*90 + .1*80
    assert result.overall == 78.0
    assert result.sigmas == {F: 10.0, Q: 10.0, L: 10.0, S: 5.0, E: 5.0}
    # mean sigma (10+10+10+5+5)/5 is exactly 8: the upper edge of "high"
    assert result.sigma == 8.0 and result.agreement == "high"
    assert result.trimmed is False and result.n_judges == 2
    # judges' own overalls: 80 and 76 -> sd 2, margin 1.96*2/sqrt(2) = 2.77
    assert result.ci95 == (75.2, 80.8)
    assert result.warnings == ()


def test_three_judges_with_low_agreement_keep_every_score() -> None:
    result = score_panel([flat(40), flat(90), flat(95)])

    # sigma per dimension sqrt(((-35)^2 + 15^2 + 20^2) / 3) = sqrt(1850/3) = 24.83
    assert result.sigma == pytest.approx(math.sqrt(1850 / 3))
    assert result.agreement == "low" and result.trimmed is False
    # untrimmed mean 75; a trimmed one would have been the median, 90
    assert result.dimensions == dict.fromkeys(DIMENSIONS, 75.0)
    assert result.overall == 75.0
    # margin 1.96 * sqrt(1850/3) / sqrt(3) = 28.10; the upper bound is clamped to 100
    assert result.ci95 == (46.9, 100.0)
    assert result.warnings == tuple(
        f"low judge agreement on {d} (sigma 24.8 > 15)" for d in DIMENSIONS
    )


def test_three_judges_with_moderate_agreement_are_trimmed_to_the_median() -> None:
    a = judge(60, 70, 65, 80, 40)
    b = judge(75, 72, 70, 90, 60)
    c = judge(90, 80, 90, 85, 80)
    result = score_panel([a, b, c])

    sigmas = {
        F: math.sqrt(150),  # 60 75 90: deviations -15 0 15
        Q: math.sqrt(56 / 3),  # 70 72 80: -4 -2 6
        L: math.sqrt(350 / 3),  # 65 70 90: -10 -5 15
        S: math.sqrt(50 / 3),  # 80 90 85: -5 5 0
        E: math.sqrt(800 / 3),  # 40 60 80: -20 0 20
    }
    assert result.sigmas == pytest.approx(sigmas)
    assert result.sigma == pytest.approx(sum(sigmas.values()) / 5)  # 9.56
    assert result.agreement == "moderate" and result.trimmed is True
    assert result.dimensions == {F: 75.0, Q: 72.0, L: 70.0, S: 85.0, E: 60.0}
    # .3*75 + .25*72 + .25*70 + .1*85 + .1*60 (untrimmed means would give 74.3)
    assert result.overall == 72.5
    # judges' overalls 63.75, 73, 86: trimming the judges leaves one, so no margin
    assert result.ci95 == (72.5, 72.5)
    # the panel agrees well enough to trim, yet engineering alone disagrees
    assert result.warnings == ("low judge agreement on engineering (sigma 16.3 > 15)",)


def test_five_judges_with_high_agreement_drop_one_highest_and_one_lowest() -> None:
    result = score_panel([flat(70), flat(80), flat(81), flat(82), flat(90)])

    # mean 80.6, squared deviations 112.36 .36 .16 1.96 88.36 -> variance 40.64
    assert result.sigma == pytest.approx(math.sqrt(40.64))
    assert result.agreement == "high" and result.trimmed is True
    assert result.dimensions == dict.fromkeys(DIMENSIONS, 81.0)
    assert result.overall == 81.0
    # CI over the judges 80, 81, 82: sd sqrt(2/3), margin 1.96*sqrt(2/3)/sqrt(3) = 0.92
    assert result.ci95 == (80.1, 81.9)


def test_four_judges_trimmed_keep_a_margin_from_the_two_middle_judges() -> None:
    result = score_panel([flat(70), flat(76), flat(80), flat(86)])

    assert result.agreement == "high" and result.trimmed is True
    assert result.overall == 78.0
    # judges 76 and 80 remain: sd 2, margin 1.96*2/sqrt(2) = 2.77
    assert result.ci95 == (75.2, 80.8)


def test_trimming_drops_exactly_one_of_tied_extremes() -> None:
    result = score_panel(
        [
            judge(80, 60, 70, 70, 70),
            judge(80, 60, 70, 70, 70),
            judge(80, 62, 70, 70, 70),
            judge(90, 60, 70, 70, 70),
        ]
    )
    assert result.trimmed is True
    # functionality 80 80 80 90 keeps 80 80; quality 60 60 62 60 keeps 60 60
    assert result.dimensions[F] == 80.0
    assert result.dimensions[Q] == 60.0


def test_ci_is_clamped_to_the_score_range() -> None:
    # overall 15, margin 1.96*15/sqrt(2) = 20.8: the lower bound would be -5.8
    assert score_panel([flat(0), flat(30)]).ci95 == (0.0, 35.8)


def test_one_judge_has_no_margin() -> None:
    result = score_panel([judge(90, 80, 70, 60, 50)])

    assert result.dimensions == {F: 90.0, Q: 80.0, L: 70.0, S: 60.0, E: 50.0}
    # 27 + 20 + 17.5 + 6 + 5
    assert result.overall == 75.5
    assert result.ci95 == (75.5, 75.5)
    assert result.sigma == 0.0 and result.agreement == "high"
    assert result.trimmed is False and result.warnings == ()


def test_scores_out_of_range_are_clamped_before_any_statistic() -> None:
    result = score_panel([judge(120, 80, 80, -5, 80), judge(100, 80, 80, 0, 80)])

    assert result.dimensions[F] == 100.0 and result.dimensions[S] == 0.0
    # clamped, both judges agree exactly
    assert result.sigmas[F] == 0.0 and result.sigmas[S] == 0.0
    assert result.overall == 30 + 20 + 20 + 0 + 8


@pytest.mark.parametrize(
    ("low", "high", "band"),
    [
        (50, 66, "high"),  # sigma exactly 8
        (50, 66.2, "moderate"),  # 8.1
        (50, 80, "moderate"),  # exactly 15
        (0.1, 30.1, "moderate"),  # 15 computed as 15.000000000000002
        (50, 80.2, "low"),  # 15.1
    ],
)
def test_agreement_band_edges(low: float, high: float, band: str) -> None:
    result = score_panel([flat(low), flat(high)])
    assert result.agreement == band
    assert (len(result.warnings) == 5) is (band == "low")


def test_agreement_band_function() -> None:
    assert [agreement_band(s) for s in (0.0, 8.0, 8.01, 15.0, 15.01)] == [
        "high",
        "high",
        "moderate",
        "moderate",
        "low",
    ]


def test_custom_weights_change_the_overall_only() -> None:
    scores = [judge(90, 80, 70, 60, 50), judge(80, 70, 60, 50, 40)]
    only_security = score_panel(scores, weights={F: 0, Q: 0, L: 0, S: 1, E: 0})
    default = score_panel(scores)

    assert only_security.overall == 55.0
    assert only_security.dimensions == default.dimensions
    # the CI follows the weights too: judges' overalls 60 and 50 -> margin 1.96*5/sqrt(2)
    assert only_security.ci95 == (48.1, 61.9)


def test_weights_within_tolerance_of_one_are_accepted() -> None:
    weights = {F: 0.3, Q: 0.25, L: 0.25, S: 0.1, E: 0.1 + 5e-7}
    assert score_panel([flat(70)], weights=weights).overall == 70.0


def test_rounding_is_half_up_on_dimensions_and_overall() -> None:
    # mean 80.25 is exact in binary; round() would give 80.2
    assert score_panel([flat(80), flat(80.5)]).dimensions[F] == 80.3
    # .5*70.1 + .5*70.0 is 70.05 in decimal, a hair below it in binary
    half = {F: 0.5, Q: 0.5, L: 0.0, S: 0.0, E: 0.0}
    assert score_panel([judge(70.1, 70, 0, 0, 0)], weights=half).overall == 70.1
    # 18.12 + 17.5 + 17.5 + 8.03 + 7 = 68.15, computed in binary as 68.14999999999999
    assert score_panel([judge(60.4, 70, 70, 80.3, 70)]).overall == 68.2


def test_result_is_frozen() -> None:
    result = score_panel([flat(70)])
    assert isinstance(result, PanelScore)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.overall = 100.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("scores", "message"),
    [
        ([], "panel is empty"),
        (flat(70), "one mapping per judge"),
        ([{F: 70, Q: 70, L: 70, S: 70}], "judge 0 scores lacks dimension(s) engineering"),
        ([flat(70), {**flat(70), "style": 3}], "judge 1 scores has unknown dimension(s) style"),
        ([{**flat(70), F: "80"}], "judge 0 scores['functionality'] must be a number"),
        ([{**flat(70), Q: None}], "judge 0 scores['quality'] must be a number"),
        ([{**flat(70), L: True}], "must be a number"),
        ([{**flat(70), S: math.nan}], "must be finite"),
        ([[70, 70, 70, 70, 70]], "must be a mapping"),
    ],
)
def test_invalid_panels_raise_one_line_errors(scores: object, message: str) -> None:
    with pytest.raises(ValueError) as error:
        score_panel(scores)  # type: ignore[arg-type]
    assert message in str(error.value)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ({F: 0.3, Q: 0.25, L: 0.25, S: 0.1, E: 0.2}, "weights must sum to 1, got 1.1"),
        ({F: 0.5, Q: 0.5, L: 0.25, S: 0.0, E: -0.25}, "must not be negative: engineering"),
        ({F: 0.5, Q: 0.5}, "weights lacks dimension(s) logic, security, engineering"),
        ({**dict.fromkeys(DIMENSIONS, 0.2), "speed": 0.0}, "unknown dimension(s) speed"),
        ({**dict.fromkeys(DIMENSIONS, 0.2), F: "0.2"}, "weight 'functionality' must be a number"),
    ],
)
def test_invalid_weights_raise_one_line_errors(weights: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError) as error:
        score_panel([flat(70)], weights=weights)  # type: ignore[arg-type]
    assert message in str(error.value)
    assert "\n" not in str(error.value)
