"""Items evaluated ahead of pytest: how one process keeps many model calls in flight.

pytest runs a process's items one after another; a real model answers in seconds. So when
an item starts, the evaluations of the next items this process will run (the pytest plugin
says which) start too, each on a thread of its own, up to ``depth`` ahead. Their model calls
wait for the run's call gate (``--r2r-concurrency`` calls in flight, target, generator and
judges alike; :class:`~pytest_req2rank.run.Run` makes both from the option); their sandbox executions take turns (:class:`~pytest_req2rank.sandbox.Sandbox`
executions of one process never outnumber its grading slots). An item's result is still
reported by its own pytest item, in pytest's order, and is the same as it would be serially:
an evaluation depends on its task, the settings and the seed, never on another item.

Closing cancels what has not started and every call in flight (``-x``, ``--maxfail``,
Ctrl-C): nothing finished is lost (answers are in the store's cache as they arrive, so
``--r2r-resume`` repeats none), nothing half-done is reported.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager
from itertools import islice

from ..models import ItemResult, Task


class Prefetcher:
    """Runs ``evaluate`` for up to ``depth`` upcoming tasks ahead of the one pytest runs."""

    def __init__(self, evaluate: Callable[[Task], ItemResult], depth: int) -> None:
        self._evaluate = evaluate
        self.depth = depth
        # The item pytest waits on, plus ``depth`` ahead; more only while a dropped one ends.
        self._pool = ThreadPoolExecutor(max_workers=depth + 1, thread_name_prefix="r2r-item")
        self._started: dict[str, Future[ItemResult]] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._used = False

    def ahead(self, tasks: Iterable[Task]) -> None:
        """Start the first ``depth`` of ``tasks`` (the items this process runs next, in order;
        no more of them are read) that have not started; forget started ones no longer among
        them (another worker took them: they finish in the background, their answers cached)."""
        window = {task.item_id: task for task in islice(tasks, self.depth)}
        with self._lock:
            if self._closed:
                return
            for item_id in [i for i in self._started if i not in window]:
                del self._started[item_id]
            for item_id, task in window.items():
                if item_id not in self._started:
                    self._started[item_id] = self._pool.submit(self._evaluate, task)
                    self._used = True

    def take(self, task: Task) -> Future[ItemResult]:
        """The evaluation of ``task``: the one started ahead, or one started now."""
        with self._lock:
            future = self._started.pop(task.item_id, None)
            if future is None:
                if self._closed:
                    raise RuntimeError("the evaluator is closed")
                future = self._pool.submit(self._evaluate, task)
                self._used = True
            return future

    def close(self, calls_refused: Callable[[], AbstractContextManager[None]]) -> None:
        """Cancel what has not started, then every model call in flight, refusing new ones
        (``calls_refused``) until the threads have ended (a sandbox execution ends within its
        own timeout). One that never started an evaluation leaves the process's calls be."""
        with self._lock:
            self._closed = True
            self._started.clear()
            used = self._used
        self._pool.shutdown(wait=False, cancel_futures=True)
        if not used:
            return
        with calls_refused():
            self._pool.shutdown(wait=True)
