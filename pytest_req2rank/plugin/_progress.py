"""A progress line for long runs, printed by the controller now and then between pytest's own
progress: items graded, the score so far, model calls made and in flight, and the rate."""

from __future__ import annotations

import time
from collections.abc import Callable

from ..models import ItemResult

EVERY_S = 30.0
"""Seconds between two progress lines; a run shorter than this prints none."""


class Progress:
    """What the controller has received so far; :meth:`due` says when to print :meth:`line`."""

    def __init__(self, total: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self._clock = clock
        self._started = self._last = clock()
        self._graded = 0
        self._scores: list[float] = []
        self._calls = 0
        self._in_flight: dict[str, int] = {}

    def record(self, item: ItemResult, worker: str, in_flight: int | None) -> None:
        self._graded += 1
        if item.score is not None:
            self._scores.append(item.score)
        self._calls += (item.usage.calls + item.generator_usage.calls
                        + sum(verdict.usage.calls for verdict in item.judges))
        if in_flight is not None:
            self._in_flight[worker] = in_flight

    def due(self) -> bool:
        """True once every :data:`EVERY_S` seconds, while items remain."""
        now = self._clock()
        if now - self._last < EVERY_S or self._graded >= self.total:
            return False
        self._last = now
        return True

    def line(self) -> str:
        elapsed = self._clock() - self._started
        rate = self._graded / elapsed if elapsed > 0 else 0.0
        score = (f"score so far {sum(self._scores) / len(self._scores):.1f}"
                 if self._scores else "no score yet")
        left = (f" | ~{(self.total - self._graded) / rate / 60:.0f} min left" if rate > 0 else "")
        return (f"req2rank: {self._graded}/{self.total} items graded | {score} | "
                f"{self._calls} model calls, {sum(self._in_flight.values())} in flight | "
                f"{rate * 60:.1f} items/min{left}")
