"""The leaderboard hub: takes runs submitted with their evidence, verifies them, ranks them.

``req2rank-hub serve | migrate | backup DEST_DIR | token create USER`` (:mod:`.cli`);
:func:`create_app` for an ASGI server of your own. Needs the ``hub`` extra
(``pip install 'pytest-req2rank[hub]'``).
"""

from ._app import create_app
from ._config import HubConfig
from ._database import migrate
from ._receipts import verify_receipt
from ._submissions import submission_digest

__all__ = ["HubConfig", "create_app", "migrate", "submission_digest", "verify_receipt"]
