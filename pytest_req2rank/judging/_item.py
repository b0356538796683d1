"""A finished item put before the panel: its verdicts and score added to the result."""

from __future__ import annotations

from collections.abc import Sequence

from ..models import INFRA_STATUSES, ItemResult, ProjectRequirement
from ._case import Judge, JudgeCase
from ._panel import PanelConfig, judge_item


def judge_result(
    item: ItemResult,
    judges: Sequence[Judge],
    config: PanelConfig,
    requirement: ProjectRequirement | None = None,
) -> ItemResult:
    """``item`` with every judge's verdict, the panel's result and the panel's score.

    Items the panel cannot judge are returned unchanged: an infrastructure
    failure stays unscored, and an answer without code, or cut by the token limit before
    its code was complete (``truncated``), keeps its score (0). When every judge fails the item is ``judge_failed``: its score is
    ``None`` and it is left out of the run's score.
    """
    if not judges or item.status in (*INFRA_STATUSES, "truncated") or not item.code:
        return item
    verdicts, panel = judge_item(JudgeCase.from_item(item, requirement), judges, config)
    return item.model_copy(update={"judges": verdicts, "panel": panel, "score": panel.overall})
