"""The last-resort ceiling of each benchmark item: a pytest-timeout marker past the item's
own budgets."""

from __future__ import annotations

import os

import pytest

from ._keys import RUN_KEY
from ._lookahead import task_id

LAST_RESORT_GRACE_S = 60.0


def guard_with_ceilings(config: pytest.Config, items: list[pytest.Item]) -> None:
    """pytest-timeout's marker on each benchmark item, past the item's own ceiling
    (``Run.ceiling_s``): the last resort if the evaluator itself hangs. A timeout the
    user set (``--timeout``, ini, their own marker) stays."""
    if not config.pluginmanager.hasplugin("timeout") or (
        config.getoption("timeout", None) or config.getini("timeout") not in (None, "", "0")
        or os.environ.get("PYTEST_TIMEOUT")
    ):
        return
    run = config.stash[RUN_KEY]
    for item in items:
        planned = task_id(item)
        if planned is not None and planned in run.plan.item_ids and not item.get_closest_marker("timeout"):
            ceiling = run.ceiling_s(planned) + LAST_RESORT_GRACE_S
            item.add_marker(pytest.mark.timeout(ceiling, func_only=True))
