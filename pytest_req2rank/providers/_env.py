"""The one place litellm is imported: after setting offline-safe environment defaults."""

from __future__ import annotations

import os
import threading
from collections.abc import MutableMapping
from types import ModuleType

OFFLINE_DEFAULTS: dict[str, str] = {
    # Without it, importing litellm fetches the price map from the internet.
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
    # Without it, importing litellm runs load_dotenv() on the working directory and its parents.
    "LITELLM_MODE": "PRODUCTION",
    # Without it, token counting on HF-style names retries a download for ~20 s per call.
    "HF_HUB_OFFLINE": "1",
}

_import_lock = threading.Lock()


def apply_offline_defaults(environ: MutableMapping[str, str] | None = None) -> dict[str, str]:
    """Set :data:`OFFLINE_DEFAULTS` where unset; a user's own value always wins.

    Returns the variables this call set.
    """
    target = os.environ if environ is None else environ
    applied: dict[str, str] = {}
    for name, value in OFFLINE_DEFAULTS.items():
        if name not in target:
            target[name] = value
            applied[name] = value
    return applied


def import_litellm() -> ModuleType:
    """Import litellm (2–4 s, once per process) with the offline defaults applied first."""
    with _import_lock:
        apply_offline_defaults()
        import litellm  # only a process that calls a model pays for it

        # Keeps litellm's "Give Feedback / Get Help" banners out of pytest's output.
        litellm.suppress_debug_info = True
        return litellm
