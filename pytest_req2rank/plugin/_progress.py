"""A progress line for long runs, printed by the controller now and then on a line of its own
between pytest's: items graded, the score so far, model calls made and in flight, and, once
it can be measured, the rate and the time left."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from ..models import ItemId, ItemResult

EVERY_S = 30.0
"""Seconds between two progress lines; a run shorter than this prints none."""
MEASURED_ITEMS = 10
"""Items evaluated in this session before the rate (and the time left) is given."""


class Progress:
    """What the controller has received so far; :meth:`due` says when to print :meth:`line`.

    The rate counts only items evaluated in this session, from the first one's arrival (the
    workers' start is not an item's work), and is given once :data:`MEASURED_ITEMS` of them
    arrived over at least :data:`EVERY_S` seconds; items kept from an interrupted run (they
    started before this session) arrive at once and would make the rest look quick."""

    def __init__(self, total: int, clock: Callable[[], float] = time.monotonic,
                 started_at: datetime | None = None) -> None:
        self.total = total
        self._clock = clock
        self._started_at = started_at or datetime.now(UTC)
        self._last = clock()
        self._graded = 0
        self._scores: dict[str | None, list[float]] = {}
        """The scores so far, per model of a run of several (``None``: a run of one)."""
        self._calls = 0
        self._in_flight: dict[str, int] = {}
        self._evaluated = 0
        self._first_evaluated: float | None = None

    def record(self, item: ItemResult, worker: str, in_flight: int | None) -> None:
        self._graded += 1
        if item.score is not None:
            found = ItemId.try_parse(item.item_id)
            model = None if found is None else found.model
            self._scores.setdefault(model, []).append(item.score)
        self._calls += (item.usage.calls + item.generator_usage.calls
                        + sum(verdict.usage.calls for verdict in item.judges))
        if in_flight is not None:
            self._in_flight[worker] = in_flight
        if not self._kept(item):
            self._evaluated += 1
            if self._first_evaluated is None:
                self._first_evaluated = self._clock()

    def due(self) -> bool:
        """True once every :data:`EVERY_S` seconds, while items remain."""
        now = self._clock()
        if now - self._last < EVERY_S or self._graded >= self.total:
            return False
        self._last = now
        return True

    def line(self) -> str:
        means = {model: sum(scores) / len(scores) for model, scores in self._scores.items()}
        if not means:
            score = "no score yet"
        elif None in means:
            score = f"score so far {means[None]:.1f}"
        else:  # a run of several models: no score pools them
            score = "scores so far " + ", ".join(f"{model} {mean:.1f}"
                                                 for model, mean in means.items())
        rate = self._rate()
        pace = (f" | {rate * 60:.1f} items/min | {_time_left((self.total - self._graded) / rate)}"
                if rate else "")
        return (f"req2rank: {self._graded}/{self.total} items graded | {score} | "
                f"{self._calls} model calls, {sum(self._in_flight.values())} in flight{pace}")

    def _rate(self) -> float | None:
        """Items per second since the first evaluated one arrived; None until measurable."""
        if self._first_evaluated is None or self._evaluated < MEASURED_ITEMS:
            return None
        measured = self._clock() - self._first_evaluated
        if measured < EVERY_S:
            return None
        return (self._evaluated - 1) / measured

    def _kept(self, item: ItemResult) -> bool:
        """Whether ``item`` was evaluated before this session (kept by ``--r2r-resume``)."""
        try:
            started = datetime.fromisoformat(item.started_at)
        except ValueError:
            return False
        return _aware(started) < self._started_at


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _time_left(seconds: float) -> str:
    if seconds < 60:
        return "under a minute left"
    if seconds < 90 * 60:
        return f"~{math.ceil(seconds / 60)} min left"
    return f"~{seconds / 3600:.1f} h left"


def write_own_line(terminal: Any, line: str) -> None:
    """Write ``line`` to pytest's terminal on a line of its own. pytest writes each result's
    letter (``.``, ``F``) on the current line; without a file name before them (xdist's
    ``-n``) it does not know that line is unfinished, and ``write_line`` would continue it."""
    terminal.ensure_newline()
    writer = getattr(terminal, "_tw", None)
    if writer is not None and writer.width_of_current_line > 0:
        terminal.write("\n")
    terminal.write_line(line)
