"""Canonical JSON (RFC 8785) and SHA-256."""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785


def canonical_json(value: Any) -> bytes:
    """``value`` as RFC 8785 canonical JSON: sorted keys, no whitespace, ECMAScript numbers."""
    return rfc8785.dumps(value)


def sha256_hex(value: Any) -> str:
    """SHA-256 (hex) of ``value``: of the bytes themselves, of a string's UTF-8, or of
    anything else's canonical JSON."""
    if isinstance(value, bytes):
        data = value
    elif isinstance(value, str):
        data = value.encode("utf-8")
    else:
        data = canonical_json(value)
    return hashlib.sha256(data).hexdigest()
