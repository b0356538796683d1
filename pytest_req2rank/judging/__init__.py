"""The judge panel: judges score an item on five dimensions, the panel aggregates and blends.

A panel is a list of :class:`Judge` objects (:func:`build_judges` makes them
from ``--r2r-judges`` model strings); :func:`judge_result` runs them concurrently on a
finished item and adds every verdict, the panel's
:class:`~pytest_req2rank.models.PanelResult` and its score. ``r2r/static`` is the
deterministic built-in judge; any LiteLLM model judges through :class:`LLMJudge`.
"""

from ..models import STATIC_JUDGE, JudgeVerdict, PanelResult
from ._answer import parse_judge_answer
from ._approach import ApproachJudge
from ._case import Judge, JudgeCase, weighted_overall
from ._evidence import execution_ratio
from ._family import family, same_family
from ._llm import LLMJudge
from ._panel import PanelConfig, aggregate_verdicts, blend, build_judges, judge_result

__all__ = [
    "STATIC_JUDGE",
    "ApproachJudge",
    "Judge",
    "JudgeCase",
    "JudgeVerdict",
    "LLMJudge",
    "PanelConfig",
    "PanelResult",
    "aggregate_verdicts",
    "blend",
    "build_judges",
    "execution_ratio",
    "family",
    "judge_result",
    "parse_judge_answer",
    "same_family",
    "weighted_overall",
]
