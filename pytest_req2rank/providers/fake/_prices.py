"""Scripted prices and model information, registered in litellm's model map (and taken out
again on reset)."""

from __future__ import annotations

import copy
import sys
import threading
from typing import Any

from ...models import FAKE_PREFIX
from .._env import import_litellm
from ._script import FakeScript

_lock = threading.Lock()
_saved: dict[str, dict[str, Any] | None] = {}
_registered: str | None = None


def ensure_prices(script: FakeScript) -> None:
    """Register the script's prices and model information as ``fake/<name>`` models, once per
    script."""
    global _registered
    with _lock:
        if _registered == script.fingerprint:
            return
        litellm = import_litellm()
        for name in {**script.prices, **script.info}:
            key = f"{FAKE_PREFIX}{name}"
            if key not in _saved:
                previous = litellm.model_cost.get(key)
                _saved[key] = copy.deepcopy(previous) if previous is not None else None
            price, info = script.prices.get(name), script.info.get(name)
            entry = {
                **(price.model_dump() if price is not None else {}),
                **(info.model_dump(exclude_none=True) if info is not None else {}),
                "litellm_provider": "fake",
                "mode": "chat",
                # Stated so litellm does not warn that cache pricing defaults to 0.
                "cache_creation_input_token_cost": 0.0,
                "cache_read_input_token_cost": 0.0,
            }
            litellm.register_model({key: entry}, persist_across_reloads=False)
        _registered = script.fingerprint


def restore_prices() -> None:
    """Put litellm's price map back as it was before any scripted price was registered."""
    global _registered
    with _lock:
        _registered = None
        litellm = sys.modules.get("litellm")
        if litellm is None:
            _saved.clear()
            return
        for key, previous in _saved.items():
            if previous is None:
                litellm.model_cost.pop(key, None)
            else:
                litellm.model_cost[key] = previous
        _saved.clear()
        invalidate = getattr(litellm.utils, "_invalidate_model_cost_lowercase_map", None)
        if callable(invalidate):
            invalidate()
