"""The controller's progress line: due every so often, never after the last item."""

from __future__ import annotations

from pytest_req2rank.models import ItemResult, JudgeVerdict, Usage
from pytest_req2rank.plugin._progress import EVERY_S, Progress


def _item(n: int, score: float | None) -> ItemResult:
    return ItemResult(item_id=f"d/t{n}", dataset="d", task_id=f"t{n}", model="m",
                      status="success" if score else "api_error", score=score,
                      usage=Usage(calls=1), generator_usage=Usage(calls=2),
                      judges=[JudgeVerdict(judge="j", usage=Usage(calls=1))])


def test_the_line_counts_items_scores_and_calls() -> None:
    now = [0.0]
    progress = Progress(total=4, clock=lambda: now[0])
    progress.record(_item(1, 80.0), "gw0", 5)
    progress.record(_item(2, None), "gw1", 3)
    now[0] = 60.0
    assert progress.line() == ("req2rank: 2/4 items graded | score so far 80.0 | 8 model calls, "
                               "8 in flight | 2.0 items/min | ~1 min left")


def test_due_every_interval_while_items_remain() -> None:
    now = [0.0]
    progress = Progress(total=2, clock=lambda: now[0])
    progress.record(_item(1, 50.0), "main", None)
    assert not progress.due()
    now[0] = EVERY_S
    assert progress.due() and not progress.due()
    now[0] = 3 * EVERY_S
    progress.record(_item(2, 50.0), "main", None)
    assert not progress.due(), "a line after the last item"
