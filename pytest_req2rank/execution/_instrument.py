"""Asking the target model for an answer, and the wrong answers of ``r2r/degraded:P``.

The degraded instrument answers an item wrongly with a first-order mutant of its reference
that the item's hidden tests kill: mutants are tried in an order seeded by the answer's seed
and the item, each answer extracted and graded exactly as the item's answer will be, and the
first one the tests fail with a wrong answer or an error is taken (one they fail only by a
timeout is kept in reserve, since it costs a whole time budget). When none of the tried
mutants fails, the answer is empty: a format error, which fails too, so the instrument's
accepted@1 stays P.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..models import ExecutionResult, Task
from ..mutation import mutants, mutate_files
from ..providers import Completion, CompletionRequest, DegradedProvider, Provider, answer_text
from ._extract import ExtractedCode

MAX_MUTANT_TRIES = 25
"""Mutants graded per wrong answer, at most, in search of one the hidden tests kill."""


def ask(provider: Provider, request: CompletionRequest, *,
        grade: Callable[[dict[str, str]], ExecutionResult],
        extract: Callable[[str], ExtractedCode | None]) -> Completion:
    """``provider``'s answer to ``request``; the degraded instrument is handed the item's
    grading (``grade`` of the files ``extract`` finds in an answer) to find a failing mutant."""
    if isinstance(provider, DegradedProvider) and request.task is not None:
        task, seed = request.task, request.seed
        return provider.answer(request, lambda: failing_answer(task, seed, grade, extract))
    return provider.complete(request)


def failing_answer(task: Task, seed: int | None,
                   grade: Callable[[dict[str, str]], ExecutionResult],
                   extract: Callable[[str], ExtractedCode | None]) -> str:
    """An answer holding a mutant of ``task``'s reference that its hidden tests kill, or ""
    when none of :data:`MAX_MUTANT_TRIES` tried is killed (see the module)."""
    try:
        if task.reference_files:
            found = mutate_files(task.reference_files)
            texts = [answer_text(m.apply(task.reference_files)) for m in found]
        else:
            texts = [answer_text(m.source) for m in mutants(task.reference)]
    except SyntaxError:  # a reference that does not parse has no mutant
        return ""
    random.Random(f"{seed}/{task.item_id}/degraded-mutants").shuffle(texts)
    reserve = ""
    for text in texts[:MAX_MUTANT_TRIES]:
        extracted = extract(text)
        if extracted is None:
            continue
        status = grade(extracted.files).status
        if status in ("success", "sandbox_error"):
            continue
        if status != "timeout":
            return text
        reserve = reserve or text
    return reserve
