"""Comparing what the code produced with what was expected, on the host."""

from __future__ import annotations

import math
from typing import Any

from ..errors import Req2RankError

IO_TOLERANCE = 1e-6


def numbers_close(actual: float, expected: float, tolerance: float) -> bool:
    """Equal within ``tolerance``, relative or absolute; NaN equals NaN."""
    if math.isnan(actual) or math.isnan(expected):
        return math.isnan(actual) and math.isnan(expected)
    return math.isclose(actual, expected, rel_tol=tolerance, abs_tol=tolerance)


def _as_float(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None


def _tokens_match(actual: str, expected: str, tolerance: float) -> bool:
    if actual == expected:
        return True
    a, e = _as_float(actual), _as_float(expected)
    return a is not None and e is not None and numbers_close(a, e, tolerance)


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def outputs_match(actual: str, expected: str, tolerance: float = IO_TOLERANCE) -> bool:
    """Stdout comparison: trailing whitespace per line and trailing blank lines ignored;
    tokens that parse as floats compared within ``tolerance``."""
    got, want = _lines(actual), _lines(expected)
    if got == want:
        return True
    if len(got) != len(want):
        return False
    for line, expected_line in zip(got, want):
        tokens, expected_tokens = line.split(), expected_line.split()
        if len(tokens) != len(expected_tokens):
            return False
        if not all(_tokens_match(a, e, tolerance) for a, e in zip(tokens, expected_tokens)):
            return False
    return True


def values_match(actual: Any, expected: Any, tolerance: float) -> bool:
    """Plain-data equality: floats within ``tolerance``, tuples equal lists, dict order ignored.

    Booleans are not numbers here: ``True`` does not match ``1``.
    """
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        if isinstance(expected, int) and isinstance(actual, int):
            return actual == expected
        try:
            return numbers_close(float(actual), float(expected), tolerance)
        except OverflowError:
            return False
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        return len(actual) == len(expected) and all(
            values_match(a, e, tolerance) for a, e in zip(actual, expected)
        )
    if isinstance(expected, dict) and isinstance(actual, dict):
        return actual.keys() == expected.keys() and all(
            values_match(actual[key], expected[key], tolerance) for key in expected
        )
    if expected is None or isinstance(expected, str):
        return type(actual) is type(expected) and actual == expected
    return False


class NotPlain(Req2RankError, ValueError):
    """Data from the sandbox that is not the firewall's encoding of plain values."""


MAX_DEPTH = 200
_SCALARS = (type(None), bool, int, float, str)


def decode_plain(data: Any, depth: int = 0) -> Any:
    """Rebuild a value from the harness's tagged encoding (``tagged`` in ``sandboxed/harness.py``).

    The result holds exact builtin types only, so comparing it runs no code of the
    program under test; anything else raises :class:`NotPlain`.
    """
    if depth > MAX_DEPTH:
        raise NotPlain("nested too deeply")
    if type(data) in _SCALARS:
        return data
    if type(data) is list:
        return [decode_plain(item, depth + 1) for item in data]
    if type(data) is not dict or data.keys() != {"~", "v"}:
        raise NotPlain(f"unexpected {type(data).__name__}")
    tag, value = data["~"], data["v"]
    try:
        if tag in ("tuple", "set", "frozenset") and type(value) is list:
            items = [decode_plain(item, depth + 1) for item in value]
            return {"tuple": tuple, "set": set, "frozenset": frozenset}[tag](items)
        if tag == "dict" and type(value) is list:
            pairs = [(decode_plain(k, depth + 1), decode_plain(v, depth + 1)) for k, v in value]
            return dict(pairs)
        if tag == "bytes" and type(value) is str:
            return bytes.fromhex(value)
        if tag == "complex" and type(value) is list and len(value) == 2:
            return complex(*(float(part) for part in value))
    except (TypeError, ValueError) as exc:
        raise NotPlain(f"malformed {tag}: {exc}") from None
    raise NotPlain(f"unknown tag {tag!r}")
