"""Krippendorff's α (interval) against hand computation, the textbook example and the definition."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from pytest_req2rank.models import DIMENSIONS
from pytest_req2rank.scoring import dimension_alphas, krippendorff_alpha_interval

# Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011), section C:
# 4 observers, 12 units, missing data. Published: interval alpha = 0.849.
TEXTBOOK: list[list[float | None]] = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def alpha_from_coincidences(ratings: list[list[float | None]]) -> Fraction:
    """Textbook formulation in exact arithmetic: coincidence matrix, then alpha.

    o_ck = sum over units of (pairs of values c, k in the unit) / (m_u - 1);
    alpha = 1 - (n - 1) * sum o_ck d_ck / sum n_c n_k d_ck, d_ck = (c - k)^2.
    """
    coincidences: dict[tuple[Fraction, Fraction], Fraction] = {}
    for unit in zip(*ratings):
        values = [Fraction(v) for v in unit if v is not None]
        if len(values) < 2:
            continue
        for c, k in itertools.permutations(values, 2):
            coincidences[c, k] = coincidences.get((c, k), Fraction(0)) + Fraction(
                1, len(values) - 1
            )
    marginals: dict[Fraction, Fraction] = {}
    for (c, _), o in coincidences.items():
        marginals[c] = marginals.get(c, Fraction(0)) + o
    n = sum(marginals.values(), Fraction(0))
    observed = sum((o * (c - k) ** 2 for (c, k), o in coincidences.items()), Fraction(0))
    expected = sum(
        (marginals[c] * marginals[k] * (c - k) ** 2 for c in marginals for k in marginals),
        Fraction(0),
    )
    return 1 - (n - 1) * observed / expected


def test_hand_computed_two_coders_three_units() -> None:
    # pairable values 1 1 2 2 3 4 (n = 6)
    # D_o = (0 + 0 + 2*(3-4)^2) / 6 = 1/3
    # D_e = 2*(6*35 - 13^2) / (6*5) = 82/30
    # alpha = 1 - (1/3) / (82/30) = 36/41
    assert krippendorff_alpha_interval([[1, 2, 3], [1, 2, 4]]) == pytest.approx(36 / 41)


def test_systematic_disagreement_is_negative() -> None:
    # units (1, 2) and (2, 1): D_o = 4/4 = 1, D_e = 2*(4*10 - 36)/12 = 2/3
    assert krippendorff_alpha_interval([[1, 2], [2, 1]]) == pytest.approx(-0.5)


def test_textbook_example_matches_published_value() -> None:
    alpha = krippendorff_alpha_interval(TEXTBOOK)
    assert alpha is not None
    assert round(alpha, 3) == 0.849
    assert alpha == pytest.approx(float(alpha_from_coincidences(TEXTBOOK)), abs=1e-12)


def test_matches_the_coincidence_definition_on_random_data_with_gaps() -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        coders, units = rng.integers(2, 6), rng.integers(2, 15)
        truth = rng.integers(0, 100, size=units)
        ratings: list[list[float | None]] = [
            [None if rng.random() < 0.25 else float(t + rng.integers(-15, 16)) for t in truth]
            for _ in range(coders)
        ]
        reference = alpha_from_coincidences(ratings) if _defined(ratings) else None
        alpha = krippendorff_alpha_interval(ratings)
        if reference is None:
            assert alpha is None
        else:
            assert alpha == pytest.approx(float(reference), abs=1e-9)


def _defined(ratings: list[list[float | None]]) -> bool:
    pairable = [
        v
        for unit in zip(*ratings)
        if sum(x is not None for x in unit) >= 2
        for v in unit
        if v is not None
    ]
    return len(set(pairable)) > 1


def test_cross_check_with_the_krippendorff_package() -> None:
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(11)
    data = rng.normal(70, 10, size=(4, 30)) + rng.normal(0, 6, size=(1, 30))
    data[rng.random(data.shape) < 0.2] = np.nan
    ratings = [[None if np.isnan(v) else float(v) for v in row] for row in data]
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
    assert krippendorff_alpha_interval(ratings) == pytest.approx(expected, abs=1e-9)
    assert krippendorff_alpha_interval(TEXTBOOK) == pytest.approx(
        krippendorff.alpha(
            reliability_data=np.array(TEXTBOOK, dtype=float), level_of_measurement="interval"
        )
    )


def test_perfect_agreement_is_one() -> None:
    assert krippendorff_alpha_interval([[10, 20, 30], [10, 20, 30], [10, None, 30]]) == 1.0


def test_invariant_to_shift_and_scale_and_accurate_far_from_zero() -> None:
    base = [[1.0, 2.0, 3.0], [1.0, 2.0, 4.0]]
    moved = [[1e6 + 1e-2 * v for v in row] for row in base]
    assert krippendorff_alpha_interval(moved) == pytest.approx(36 / 41, abs=1e-6)


@pytest.mark.parametrize(
    "ratings",
    [
        [],
        [[70.0, 80.0, 90.0]],  # one coder: nothing is pairable
        [[70.0, None], [None, 80.0]],  # no unit has two values
        [[80.0, 80.0, None], [80.0, 80.0, 55.0]],  # pairable values do not vary
        [[0.1, 0.1, 0.1], [0.1, 0.1, 0.1], [0.1, 0.1, 0.1]],  # nor here, despite float sums
    ],
)
def test_undefined_alpha_is_none(ratings: list[list[float | None]]) -> None:
    assert krippendorff_alpha_interval(ratings) is None


@pytest.mark.parametrize(
    ("ratings", "message"),
    [
        ([[1.0, 2.0], [1.0]], "same units"),
        ([[1.0, "2"], [1.0, 2.0]], "coder 0, unit 1 must be a number"),
        ([[1.0, 2.0], [float("inf"), 2.0]], "coder 1, unit 0 must be finite"),
    ],
)
def test_invalid_ratings_raise(ratings: list[list[object]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        krippendorff_alpha_interval(ratings)  # type: ignore[arg-type]


def scores(f: float, others: float = 50.0) -> dict[str, float]:
    return {d: (f if d == "functionality" else others) for d in DIMENSIONS}


def test_dimension_alphas_lines_judges_up_by_name_and_treats_absence_as_missing() -> None:
    items = [
        {"a": scores(1), "b": scores(1)},
        {"b": scores(2), "a": scores(2), "c": scores(3)},
        {"a": scores(3), "b": scores(4)},
        {"c": scores(9)},  # one judge only: not pairable
    ]
    alphas = dimension_alphas(items)
    expected = krippendorff_alpha_interval([[1, 2, 3, None], [1, 2, 4, None], [None, 3, None, 9]])
    assert alphas["functionality"] == pytest.approx(expected)
    # every other dimension is 50 everywhere: no variation, alpha undefined
    assert all(alphas[d] is None for d in DIMENSIONS[1:])


def test_dimension_alphas_clamp_and_validate_like_the_panel() -> None:
    clamped = dimension_alphas(
        [{"a": scores(150), "b": scores(100)}, {"a": scores(0), "b": scores(-3)}]
    )
    assert clamped["functionality"] == 1.0
    with pytest.raises(ValueError, match="judge 'b' scores lacks dimension"):
        dimension_alphas([{"a": scores(1), "b": {"functionality": 1.0}}])
