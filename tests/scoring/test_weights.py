"""Dimension weights written as percentages (--r2r-weights)."""

from __future__ import annotations

import pytest

from pytest_req2rank.models import DEFAULT_WEIGHTS, parse_weights


def test_percentages_become_fractions() -> None:
    text = "functionality=40, quality=20, logic=20, security=10, engineering=10"
    assert parse_weights(text) == {"functionality": 0.4, "quality": 0.2, "logic": 0.2,
                                   "security": 0.1, "engineering": 0.1}
    default = "functionality=30,quality=25,logic=25,security=10,engineering=10"
    assert parse_weights(default) == pytest.approx(dict(DEFAULT_WEIGHTS))


@pytest.mark.parametrize(("text", "message"), [
    ("functionality=100", "weights lacks dimension.*quality"),
    ("functionality", "expected DIMENSION=PERCENT pairs"),
    ("functionality=x,quality=25,logic=25,security=10,engineering=40", "must be a number"),
    ("functionality=30,functionality=25,logic=25,security=10,engineering=10", "more than once"),
    ("functionality=30,quality=25,logic=25,security=10,engineering=20", "sum to 100, got 110"),
    ("functionality=30,quality=25,logic=25,security=10,engineering=10,style=0", "unknown"),
    ("functionality=50,quality=-5,logic=35,security=10,engineering=10", "must not be negative"),
])
def test_bad_weights_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_weights(text)
