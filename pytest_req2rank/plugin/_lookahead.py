"""Which benchmark items this process runs next: what lets the evaluator start them early.

Without xdist the process runs the rest of ``session.items`` in order. An xdist worker runs
what the controller sends it; xdist keeps those items in a queue that has no public API
(``WorkerInteractor.torun``, pytest-xdist 3.x). It is read here, and only here, under its own
lock; when it is not there (another xdist), the look-ahead is pytest's ``nextitem`` alone,
which is correct, only slower (``tests/plugin/test_pipelining.py`` fails when the queue
cannot be read, so an xdist upgrade that moves it is noticed).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

_INDEX_KEY = pytest.StashKey[dict[str, int]]()
_INTERACTOR_KEY = pytest.StashKey[Any]()


def task_id(item: pytest.Item) -> str | None:
    """The planned item id a benchmark item runs (``None`` for any other test)."""
    callspec = getattr(item, "callspec", None)
    value = callspec.params.get("r2r_task") if callspec is not None else None
    return value if isinstance(value, str) else None


def upcoming(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[str]:
    """The ids of the benchmark items this process runs from ``item`` on, in order, read
    lazily: the run takes as many as it starts ahead."""
    planned = task_id(item)
    if planned is not None:
        yield planned
    following = _queued(item)
    if following is None:
        following = iter([nextitem] if nextitem is not None else [])
    for other in following:
        planned = task_id(other)
        if planned is not None:
            yield planned


def _queued(item: pytest.Item) -> Iterator[pytest.Item] | None:
    """The items queued after ``item`` on this process, lazily (a caller reads a few of
    them, once per item), or ``None`` when unknown."""
    session, config = item.session, item.config
    if not hasattr(config, "workerinput"):
        index = session.stash.get(_INDEX_KEY, None)
        if index is None:
            index = {other.nodeid: position for position, other in enumerate(session.items)}
            session.stash[_INDEX_KEY] = index
        position = index.get(item.nodeid)
        items = session.items
        return None if position is None else (items[i] for i in range(position + 1, len(items)))
    interactor = _worker_interactor(config)
    queue = getattr(interactor, "torun", None)
    if queue is None or not hasattr(queue, "lock"):
        return None
    with queue.lock() as pending:
        indices = [interactor.nextitem_index, *pending]
    return (session.items[i] for i in indices if isinstance(i, int) and not isinstance(i, bool))


def _worker_interactor(config: pytest.Config) -> Any:
    if _INTERACTOR_KEY not in config.stash:
        config.stash[_INTERACTOR_KEY] = next(
            (plugin for plugin in config.pluginmanager.get_plugins()
             if type(plugin).__name__ == "WorkerInteractor"), None)
    return config.stash[_INTERACTOR_KEY]
