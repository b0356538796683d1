"""The evidence chain's canonical JSON is byte for byte ``rfc8785.dumps`` (built faster)."""

from __future__ import annotations

import math
import random
import struct
from typing import Any

import pytest
import rfc8785

from pytest_req2rank.evidence import canonical_json

TRICKY: list[Any] = [
    {"b": 1, "a": [1.0, 100.0, -3.0, 1e21, 9.999999999999999e20, 1e-7, 1e-6, 9.99e-7, -0.0,
                   0.1, 5e-324, 1.7976931348623157e308, 123456789012345680000.0]},
    {"\u20ac": 1, "\U0001f600": 2, "\ue000": 3, "z": 4,
     "a\x00": "\x00\x1f\x7f\u2028\u2029\"\\\b\f\n\r\t/é\U0001f600"},
    [True, False, None, 2**53 - 1, -(2**53 - 1), 0, [], {}, "", [[]], {"": {}}],
    "plain", 3, 2.5, None,
]


@pytest.mark.parametrize("value", TRICKY)
def test_tricky_values_serialize_as_rfc8785_does(value: Any) -> None:
    assert canonical_json(value) == rfc8785.dumps(value)


def test_any_finite_double_is_written_as_ecmascript_writes_it() -> None:
    rng = random.Random(8785)
    doubles = [struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0]
               for _ in range(20_000)]
    doubles += [rng.uniform(-1e7, 1e7) for _ in range(5_000)]
    doubles += [round(rng.uniform(0, 100), 2) for _ in range(5_000)]
    finite = [value for value in doubles if math.isfinite(value)]
    assert [canonical_json(value) for value in finite] == [rfc8785.dumps(v) for v in finite]


@pytest.mark.parametrize("value", [2**53, -(2**53), "\ud800", {1: "key"}, float("nan"),
                                   float("inf"), {"a": object()}])
def test_what_rfc8785_refuses_is_refused(value: Any) -> None:
    with pytest.raises((rfc8785.CanonicalizationError, TypeError, AttributeError)):
        rfc8785.dumps(value)
    with pytest.raises((rfc8785.CanonicalizationError, TypeError, AttributeError)):
        canonical_json(value)


def test_a_results_document_serializes_as_rfc8785_does() -> None:
    from hub_server import make_document, make_items

    items = make_items(30, dimensions={"logic": 5.0}, skills=[["math", "ünïcode"]] * 30)
    document = make_document(items).model_dump(mode="json")
    assert canonical_json(document) == rfc8785.dumps(document)
