"""The judge panel: judges score an item on five dimensions, the panel aggregates and blends.

A panel is a list of :class:`Judge` objects (:func:`build_judges` makes them
from ``--r2r-judges`` model strings);
:func:`judge_item` runs them concurrently on one :class:`JudgeCase` and
returns every verdict and the item's :class:`~pytest_req2rank.models.PanelResult`.
``r2r/static`` (:class:`StaticJudge`) is the deterministic built-in judge;
any LiteLLM model judges through :class:`LLMJudge`.
"""

from ..models import STATIC_JUDGE, JudgeVerdict, PanelResult
from ._answer import InvalidAnswer, judge_answer_schema, parse_judge_answer
from ._approach import (
    APPROACH_PROMPT_VERSION,
    APPROACH_SCHEMA_FILE,
    ApproachJudge,
    ApproachVerdict,
    approach_messages,
    approach_request_schema,
    parse_approach_answer,
)
from ._case import Judge, JudgeCase, guidance_text, weighted_overall
from ._evidence import execution_ratio
from ._family import family, same_family
from ._llm import LLMJudge, judge_request_schema
from ._panel import (
    PanelConfig,
    aggregate_verdicts,
    blend,
    build_judges,
    judge_item,
    judge_result,
)
from ._prompt import JUDGE_PROMPT_VERSION, judge_messages
from ._static import StaticJudge

__all__ = [
    "APPROACH_PROMPT_VERSION",
    "APPROACH_SCHEMA_FILE",
    "JUDGE_PROMPT_VERSION",
    "STATIC_JUDGE",
    "ApproachJudge",
    "ApproachVerdict",
    "InvalidAnswer",
    "Judge",
    "JudgeCase",
    "JudgeVerdict",
    "LLMJudge",
    "PanelConfig",
    "PanelResult",
    "StaticJudge",
    "aggregate_verdicts",
    "approach_messages",
    "approach_request_schema",
    "blend",
    "build_judges",
    "execution_ratio",
    "family",
    "guidance_text",
    "judge_answer_schema",
    "judge_item",
    "judge_messages",
    "judge_request_schema",
    "judge_result",
    "parse_approach_answer",
    "parse_judge_answer",
    "same_family",
    "weighted_overall",
]
