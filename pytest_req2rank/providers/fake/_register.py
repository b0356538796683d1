"""Plugging the fake into litellm's global provider map, and taking it out again."""

from __future__ import annotations

import sys
import threading
from typing import Any

from .._env import import_litellm
from ._prices import ensure_prices, restore_prices
from ._script import FAKE_PROVIDER as PROVIDER
from ._script import FakeScriptError
from ._state import STATE, current_script

_lock = threading.Lock()
_handler: Any = None
_displaced: list[dict[str, Any]] = []
_added_to: set[str] = set()
_PROVIDER_LISTS = ("provider_list", "_custom_providers")


def register_fake_provider() -> None:
    """Serve ``fake/<name>`` models in this process (idempotent; the adapter calls it itself)."""
    global _handler
    litellm: Any = import_litellm()
    from ._handler import FakeLLM  # subclasses litellm's CustomLLM: only after litellm loads

    with _lock:
        if _handler is None:
            _handler = FakeLLM()
        current = list(litellm.custom_provider_map)
        if not any(item.get("custom_handler") is _handler for item in current):
            _displaced.extend(item for item in current if item.get("provider") == PROVIDER)
            litellm.custom_provider_map = [
                item for item in current if item.get("provider") != PROVIDER
            ] + [{"provider": PROVIDER, "custom_handler": _handler}]
            _added_to.update(attr for attr in _PROVIDER_LISTS
                             if PROVIDER not in getattr(litellm, attr))
            litellm.utils.custom_llm_setup()
    try:  # model information is read before the first call: register it now
        ensure_prices(current_script())
    except FakeScriptError:
        pass  # no script yet: the first call says so


def reset_fake_state() -> None:
    """Forget scripts, consumed responses and calls, and undo every change to litellm's globals.

    Use it in a fixture around tests that use the fake. It never imports litellm.
    """
    STATE.clear()
    restore_prices()
    litellm: Any = sys.modules.get("litellm")
    with _lock:
        if litellm is None or _handler is None:
            _displaced.clear()
            _added_to.clear()
            return
        litellm.custom_provider_map = [
            item for item in litellm.custom_provider_map if item.get("custom_handler") is not _handler
        ] + _displaced
        _displaced.clear()
        if not any(item.get("provider") == PROVIDER for item in litellm.custom_provider_map):
            for attr in _added_to:
                names = getattr(litellm, attr)
                while PROVIDER in names:
                    names.remove(PROVIDER)
        _added_to.clear()
