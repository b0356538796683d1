"""The controller's progress line: due every so often, never after the last item, a rate and
a time left only once measured, and on a line of its own among pytest's result letters."""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pytest_req2rank.models import ItemResult, JudgeVerdict, Usage
from pytest_req2rank.plugin import _progress
from pytest_req2rank.plugin._progress import EVERY_S, MEASURED_ITEMS, Progress

SESSION_START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def _item(n: int, score: float | None, *, started: datetime | None = None) -> ItemResult:
    return ItemResult(item_id=f"d/t{n}", dataset="d", task_id=f"t{n}", model="m",
                      status="success" if score else "api_error", score=score,
                      usage=Usage(calls=1), generator_usage=Usage(calls=2),
                      judges=[JudgeVerdict(judge="j", usage=Usage(calls=1))],
                      started_at=(started or SESSION_START + timedelta(seconds=n)).isoformat())


def _progress_at(total: int, now: list[float]) -> Progress:
    return Progress(total=total, clock=lambda: now[0], started_at=SESSION_START)


def test_the_line_counts_items_scores_and_calls() -> None:
    now = [0.0]
    progress = _progress_at(4, now)
    progress.record(_item(1, 80.0), "gw0", 5)
    progress.record(_item(2, None), "gw1", 3)
    now[0] = 60.0
    assert progress.line() == ("req2rank: 2/4 items graded | score so far 80.0 | 8 model calls, "
                               "8 in flight")


def test_a_run_of_several_models_shows_each_models_score_so_far() -> None:
    now = [0.0]
    progress = _progress_at(6, now)
    for n, model, score in ((1, "b/x", 100.0), (1, "a", 0.0), (2, "b/x", 50.0), (2, "a", None)):
        progress.record(_item(n, score).model_copy(update={"item_id": f"d/t{n}@{model}"}),
                        "gw0", 0)
    assert "| scores so far b/x 75.0, a 0.0 |" in progress.line()  # not the pooled 50.0


def test_the_rate_and_time_left_come_once_measured() -> None:
    now = [100.0]  # the workers' start: not counted
    progress = _progress_at(200, now)
    for n in range(MEASURED_ITEMS):
        progress.record(_item(n, 50.0), "main", None)
        now[0] += 2.0
    assert "left" not in progress.line(), "a rate from too short a time"
    now[0] = 160.0  # 9 items after the first in 60 s; 190 left at 0.15/s: 21.1 min
    assert progress.line().endswith("| 9.0 items/min | ~22 min left"), progress.line()


def test_few_items_left_is_under_a_minute_and_many_is_hours() -> None:
    now = [0.0]
    quick = _progress_at(MEASURED_ITEMS + 1, now)
    slow = _progress_at(5000, now)
    for n in range(MEASURED_ITEMS):
        quick.record(_item(n, 50.0), "main", None)
        slow.record(_item(n, 50.0), "main", None)
    now[0] = 90.0
    assert quick.line().endswith("| under a minute left")
    assert re.search(r"\| ~\d+\.\d h left$", slow.line()), slow.line()


def test_items_kept_from_an_earlier_session_do_not_make_the_rest_look_quick() -> None:
    now = [0.0]
    progress = _progress_at(500, now)
    for n in range(400):  # a resumed run: kept items arrive at once
        progress.record(_item(n, 50.0, started=SESSION_START - timedelta(hours=1)), "main", None)
    now[0] = 120.0
    assert "left" not in progress.line(), "kept items were counted as this session's rate"
    for n in range(MEASURED_ITEMS):
        progress.record(_item(400 + n, 50.0), "main", None)
        now[0] += 12.0
    line = progress.line()
    assert "400" not in line.split("|")[-1] and line.endswith("min left"), line


def test_due_every_interval_while_items_remain() -> None:
    now = [0.0]
    progress = _progress_at(2, now)
    progress.record(_item(1, 50.0), "main", None)
    assert not progress.due()
    now[0] = EVERY_S
    assert progress.due() and not progress.due()
    now[0] = 3 * EVERY_S
    progress.record(_item(2, 50.0), "main", None)
    assert not progress.due(), "a line after the last item"


DATA = Path(__file__).parent.parent / "data"
PROGRESS_LINE = re.compile(r"req2rank: \d+/12 items graded")
LETTERS_LINE = re.compile(r"(req2rank )?(?P<letters>[.F]+)\s*(\[\s*\d+%\])?")


@pytest.mark.parametrize("mode", [("-p", "no:xdist"), ("-n", "2"), ("-p", "no:xdist", "-v")],
                         ids=["plain", "xdist", "verbose"])
def test_the_line_stands_on_its_own_among_pytests_results(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mode: tuple[str, ...]) -> None:
    shutil.copy(DATA / "status_suite.jsonl", pytester.path / "status_suite.jsonl")
    monkeypatch.setattr(_progress, "EVERY_S", 0.0)  # a line after every item but the last
    result = pytester.runpytest("--r2r-suite=jsonl:status_suite.jsonl", *mode)
    result.assert_outcomes(passed=12)
    shown = "\n".join(result.outlines)
    placed = [line for line in result.outlines if PROGRESS_LINE.search(line)]
    assert len(placed) == 11, shown
    assert all(PROGRESS_LINE.match(line) for line in placed), shown
    if "-v" in mode:
        assert sum(" PASSED" in line for line in result.outlines) == 12, shown
    else:  # every result's letter is still shown, on pytest's own lines
        letters = [LETTERS_LINE.fullmatch(line) for line in result.outlines]
        assert sum(len(found["letters"]) for found in letters if found) == 12, shown
