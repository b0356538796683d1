"""The leaderboard hub: takes runs submitted with their evidence, verifies them, ranks them.

``req2rank-hub serve | migrate | backup DEST_DIR | token create USER`` (:mod:`.cli`);
:func:`create_app` for an ASGI server of your own. Needs the ``hub`` extra
(``pip install 'pytest-req2rank[hub]'``).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._config import HubConfig

if TYPE_CHECKING:
    from ._app import create_app
    from ._database import migrate
    from ._receipts import verify_receipt
    from ._submissions import submission_digest

__all__ = ["HubConfig", "create_app", "migrate", "submission_digest", "verify_receipt"]

_NEEDS_THE_EXTRA = {"create_app": "._app", "migrate": "._database",
                    "submission_digest": "._submissions", "verify_receipt": "._receipts"}


def __getattr__(name: str) -> Any:
    """What needs the ``hub`` extra is imported on first use, so that ``req2rank-hub`` (whose
    module is in this package) can say what to install when it is missing."""
    module = _NEEDS_THE_EXTRA.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value
