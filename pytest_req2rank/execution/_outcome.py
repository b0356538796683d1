"""Turning what happened to one item into its ItemResult (shared by every task form).

An answer is graded unless it cannot be: an answer cut short (the token limit, or the end
of the text inside its reasoning) whose code is missing or does not compile is
``truncated``; an answer without code is a format error (``syntax_error``), and one that
refuses the task says so in its reason. A cut answer whose code compiles is graded, with
the cut noted in its reason.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime

from ..models import INFRA_STATUSES, ExecutionResult, ItemResult, Status, Timings, Usage
from ..providers import Completion, usage_of
from ._extract import ExtractedCode
from ._grading import compile_error

FORMAT_ERROR = (
    "format_error: the answer holds no code (no JSON files, no fenced block, and the text is not "
    "Python)"
)
CUT_NOTE = "the answer was cut by the token limit, but its code compiles and was graded"


def finish_answer(
    result: ItemResult,
    t0: float,
    completion: Completion,
    extracted: ExtractedCode | None,
    *,
    program: Callable[[dict[str, str]], dict[str, str]],
    grade: Callable[[dict[str, str]], ExecutionResult],
    generation_s: float,
) -> ItemResult:
    """The ItemResult of an answer: ``grade(files)`` runs its tests unless the answer cannot
    be graded; ``program(files)`` is what the tests will load (to tell whether a cut answer's
    code compiles)."""
    def finish(status: Status, reason: str | None,
               execution: ExecutionResult | None = None) -> ItemResult:
        return finish_item(result, t0, status=status, reason=reason, usage=usage_of(completion),
                           response=completion.text, reasoning=completion.reasoning,
                           raw_response=completion.raw_text, finish_reason=finish_reason,
                           code=extracted.files if extracted else None, execution=execution,
                           generation_s=generation_s)

    finish_reason = "length" if completion.cut else completion.raw.get("finish_reason")
    problem = unreadable(completion, extracted, program)
    if problem is not None or extracted is None:
        return finish(*(problem or ("syntax_error", FORMAT_ERROR)))
    execution = grade(extracted.files)
    reason = execution.reason
    if completion.cut and execution.status not in INFRA_STATUSES:
        reason = f"{reason}; {CUT_NOTE}" if reason else CUT_NOTE
    return finish(execution.status, reason, execution)


def unreadable(completion: Completion, extracted: ExtractedCode | None,
               program: Callable[[dict[str, str]], Mapping[str, str]]
               ) -> tuple[Status, str] | None:
    """The status and reason of an answer that cannot be graded, or ``None``; ``program``
    is called only for a cut answer's code (whether it compiles)."""
    if completion.cut:
        if completion.reasoning_unfinished and extracted is None:
            return "truncated", "the answer ended inside its reasoning, before any final answer"
        if extracted is None:
            return "truncated", "the answer was cut by the token limit before any code"
        error = compile_error(program(extracted.files))
        if error is not None:
            return "truncated", ("the answer was cut by the token limit and its code does not "
                                 f"compile ({error})")
        return None
    if extracted is None:
        said = refusal(completion.text)
        if said is not None:
            return "syntax_error", ("format_error: the answer refuses the task and holds no "
                                    f'code: "{said}"')
        return "syntax_error", FORMAT_ERROR
    return None


def finish_item(
    result: ItemResult,
    t0: float,
    *,
    status: str,
    reason: str | None,
    usage: Usage | None = None,
    response: str = "",
    reasoning: str = "",
    raw_response: str | None = None,
    finish_reason: str | None = None,
    code: dict[str, str] | None = None,
    execution: ExecutionResult | None = None,
    generation_s: float | None = None,
) -> ItemResult:
    """The final ItemResult; the score is 100 x solved (dynamic items replace it with the panel's)."""
    total_s = time.perf_counter() - t0
    execution_s = execution.duration_s if execution else 0.0
    update: dict[str, object] = {
        "status": status,
        "reason": reason,
        "usage": usage or Usage(),
        "response": response,
        "reasoning": reasoning,
        "raw_response": raw_response,
        "finish_reason": finish_reason,
        "code": code or {},
        "timings": Timings(
            generation_s=total_s if generation_s is None else generation_s,
            execution_s=execution_s,
            total_s=total_s,
        ),
        "judge_time_s": execution_s,
        "finished_at": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "score": None if status in INFRA_STATUSES else (100.0 if status == "success" else 0.0),
        "cluster": result.cluster or result.item_id,
    }
    if execution is not None:
        update |= {
            "tests": execution.tests,
            "tests_passed": execution.passed,
            "tests_total": execution.total,
            "pass_ratio": execution.pass_ratio,
            "sandbox": execution.sandbox or result.sandbox,
        }
    return result.model_copy(update=update)


_CANNOT = r"(?:can ?not|can['’]t|won['’]t|will not|am unable to|['’]m unable to|am not able to|" \
          r"['’]m not able to|unable to|not able to|must decline|have to decline)"
_REFUSALS = (
    re.compile(rf"\b(?:I['’]m|I am) sorry\b[^.\n]{{0,80}}\b{_CANNOT}", re.IGNORECASE),
    re.compile(rf"\b(?:sorry|unfortunately|I apologi[sz]e)\b[^.\n]{{0,40}}\bI {_CANNOT}",
               re.IGNORECASE),
    re.compile(rf"^\W*I {_CANNOT} (?:help|assist|provide|comply|do that|write|fulfil|complete|"
               r"create|generate|support)", re.IGNORECASE | re.MULTILINE),
    re.compile(rf"\bAs an AI\b[^.\n]{{0,60}}\b{_CANNOT}", re.IGNORECASE),
)
_HEAD = 600
"""A refusal says so at once: only the answer's first characters are read."""


def refusal(answer: str) -> str | None:
    """The sentence with which ``answer`` refuses the task (at most 120 characters), or
    ``None`` when it does not read as a refusal."""
    head = answer.strip()[:_HEAD]
    for pattern in _REFUSALS:
        found = pattern.search(head)
        if found is not None:
            start = max(head.rfind(".", 0, found.start()), head.rfind("\n", 0, found.start())) + 1
            ends = [k for k in (head.find(".", found.end()), head.find("\n", found.end())) if k >= 0]
            sentence = head[start:min(ends) + 1 if ends else len(head)].strip()
            return sentence if len(sentence) <= 120 else sentence[:119] + "…"
    return None
