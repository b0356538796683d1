"""Where in a JSON document a problem is, written the way users read it."""

from __future__ import annotations

import json
from collections.abc import Iterable


def field_path(parts: Iterable[str | int]) -> str:
    """``("probes", 2, "expect")`` → ``probes[2].expect``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.replace("_", "").replace("-", "").isalnum():
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part)}]"
    return out or "<top>"
