"""Fixtures of the judge tests: cases, stub judges, and judges over the scripted fake provider."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from pytest_req2rank.judging import Judge, JudgeCase, LLMJudge
from pytest_req2rank.models import DIMENSIONS, ExecutionResult, JudgeVerdict, TestOutcome
from pytest_req2rank.providers import LiteLLMProvider
from pytest_req2rank.providers.fake import reset_fake_state, set_fake_script

CLEAN = '''"""Adding numbers."""


def add(a: int, b: int) -> int:
    """Return the sum of ``a`` and ``b``."""
    return a + b
'''


def flat(value: float) -> dict[str, float]:
    """The same score on every dimension."""
    return dict.fromkeys(DIMENSIONS, value)


def make_case(
    files: Mapping[str, str] | None = None,
    *,
    ratio: float | None = None,
    execution: ExecutionResult | None = None,
    target: str = "fake/coder",
    priorities: Mapping[str, Any] | None = None,
) -> JudgeCase:
    """A case around ``files`` (default: a clean ``calc.py``)."""
    return JudgeCase(
        requirement="Write add(a, b) returning the sum.",
        guidance="Edge cases:\n- negative numbers",
        files=dict({"calc.py": CLEAN} if files is None else files),
        execution=execution,
        execution_ratio=ratio,
        target_model=target,
        priorities=dict(priorities or {}),
    )


def passing(*names: str, failing: tuple[str, ...] = ()) -> ExecutionResult:
    """An execution where ``names`` passed and ``failing`` gave a wrong answer."""
    tests = [TestOutcome(name=n, status="success") for n in names]
    tests += [
        TestOutcome(name=n, status="wrong_answer", detail=f"{n} expected 3, got 4") for n in failing
    ]
    return ExecutionResult(status="wrong_answer" if failing else "success", tests=tests)


class StubJudge(Judge):
    """Answers with fixed scores (or a fixed error); optionally waits on a barrier first."""

    def __init__(
        self,
        name: str,
        scores: Mapping[str, float] | None = None,
        *,
        error: str | None = None,
        barrier: threading.Barrier | None = None,
        crash: bool = False,
    ) -> None:
        self.name = name
        self.scores = dict(scores) if scores is not None else None
        self.error = error
        self.barrier = barrier
        self.crash = crash
        self.cases: list[JudgeCase] = []

    def judge(self, case: JudgeCase) -> JudgeVerdict:
        self.cases.append(case)
        if self.barrier is not None:
            self.barrier.wait()
        if self.crash:
            raise RuntimeError("stub judge crashed")
        return JudgeVerdict(judge=self.name, scores=self.scores, error=self.error, raw="stub")


@pytest.fixture
def fake_judge() -> Iterator[Callable[..., LLMJudge]]:
    """``fake_judge(responses, name="judge", **options)``: an LLMJudge over ``fake/<name>``
    answering ``responses`` in turn (the last repeats); waits between retries are skipped."""
    delays: list[float] = []

    async def no_sleep(seconds: float) -> None:
        delays.append(seconds)

    scripts: dict[str, list[dict[str, Any]]] = {}

    def make(responses: list[dict[str, Any]], name: str = "judge", **options: Any) -> LLMJudge:
        scripts[name] = [{"responses": responses}]
        set_fake_script({"models": scripts})
        return LLMJudge(LiteLLMProvider(f"fake/{name}", sleep=no_sleep), **options)

    reset_fake_state()
    yield make
    reset_fake_state()
