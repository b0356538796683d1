"""The generation state machine: five states, its actions and their record, without a model.

States run understanding → ideation → synthesis → validation → collection → complete. The
pipeline decides each step from checks it computes and tells the machine:
:meth:`StateMachine.transition` (forward, one state), :meth:`~StateMachine.retry` (a
recoverable error: the same state asks again with the error; at most ``max_retries`` times
per prompt, then the error end), :meth:`~StateMachine.rollback` (a fundamental flaw: back to
an earlier state, the reason kept in :attr:`~StateMachine.memory`, which later prompts
include; at most ``max_rollbacks`` per run) and :meth:`~StateMachine.fail` (the error end).
Every step is recorded with the calls, tokens, cost and time spent since the one before.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from enum import StrEnum

from ..errors import Req2RankError
from ..models import TransitionRecord, Usage


class State(StrEnum):
    UNDERSTANDING = "understanding"
    IDEATION = "ideation"
    SYNTHESIS = "synthesis"
    VALIDATION = "validation"
    COLLECTION = "collection"
    COMPLETE = "complete"
    ERROR = "error"


ORDER = (State.UNDERSTANDING, State.IDEATION, State.SYNTHESIS, State.VALIDATION,
         State.COLLECTION, State.COMPLETE)
"""The forward path; a transition moves one step along it."""


class RetryBoundReached(Req2RankError):
    """A prompt's answer failed its check more than ``max_retries`` times: the machine is in
    its error end."""


class StateMachine:
    """The machine's state, its record and its context memory (the rollback reasons)."""

    def __init__(self, *, max_retries: int, max_rollbacks: int,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.max_retries, self.max_rollbacks = max_retries, max_rollbacks
        self.state = State.UNDERSTANDING
        self.transitions: list[TransitionRecord] = []
        self.memory: list[str] = []
        self.rollbacks = 0
        self._clock = clock
        self._mark = clock()
        self._spent = Usage()
        self._total = Usage()

    @property
    def done(self) -> bool:
        return self.state in (State.COMPLETE, State.ERROR)

    @property
    def retries(self) -> int:
        return sum(t.action == "retry" for t in self.transitions)

    @property
    def usage(self) -> Usage:
        """Every call's usage so far."""
        return self._total

    def spend(self, usage: Usage) -> None:
        """Count a model call's usage toward the next recorded step."""
        self._spent += usage
        self._total += usage

    def transition(self, reason: str) -> None:
        """Move forward one state: the current one's exit check passed."""
        self._check_live()
        target = ORDER[ORDER.index(self.state) + 1]
        self._record(target, "transition", reason)

    def retry(self, reason: str, attempt: int) -> None:
        """Ask again in this state with ``reason`` fed back; ``attempt`` counts the retries of
        this prompt (1 for the first). Past the bound, the error end and
        :class:`RetryBoundReached`."""
        self._check_live()
        if attempt > self.max_retries:
            self.fail(f"retry bound ({self.max_retries}) reached: {reason}")
            raise RetryBoundReached(reason)
        self._record(self.state, "retry", reason)

    def can_roll_back(self) -> bool:
        return self.rollbacks < self.max_rollbacks

    def rollback(self, target: State, reason: str) -> None:
        """Go back to the earlier ``target`` and keep ``reason`` in the memory."""
        self._check_live()
        if target not in ORDER or ORDER.index(target) >= ORDER.index(self.state):
            raise ValueError(f"a rollback goes to an earlier state, not {target} from {self.state}")
        if not self.can_roll_back():
            raise ValueError(f"no rollback left ({self.max_rollbacks} allowed)")
        self.rollbacks += 1
        self.memory.append(f"{self.state} -> {target}: {reason}")
        self._record(target, "rollback", reason)

    def fail(self, reason: str) -> None:
        """The error end."""
        self._check_live()
        self._record(State.ERROR, "error", reason)

    def _check_live(self) -> None:
        if self.done:
            raise ValueError(f"the machine has ended ({self.state})")

    def _record(self, target: State, action: str, reason: str) -> None:
        now = self._clock()
        spent = self._spent
        self.transitions.append(TransitionRecord(
            source=str(self.state), target=str(target), action=action,  # type: ignore[arg-type]
            reason=reason, calls=spent.calls, prompt_tokens=spent.prompt_tokens,
            completion_tokens=spent.completion_tokens, cost_usd=spent.cost_usd,
            seconds=round(now - self._mark, 6)))
        self.state, self._mark, self._spent = target, now, Usage()
