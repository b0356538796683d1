"""Per-problem question-and-answer log, one JSON line per problem (ARCHITECTURE.md, Metrics 7)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..models import ItemResult

_BREAKDOWN = {
    "success": "passed",
    "wrong_answer": "wrong_answer",
    "timeout": "timeout",
    "runtime_error": "runtime_error",
    "syntax_error": "syntax_error",
}


def qa_record(item: ItemResult, *, temperature: float, max_new_tokens: int) -> dict[str, Any]:
    """One log record: prompt, response (the final answer; with the model's reasoning and,
    when reasoning was taken out of it, the answer as received), quality, cost, error
    breakdown, first failed case."""
    breakdown = dict.fromkeys(_BREAKDOWN.values(), 0)
    for test in item.tests:
        breakdown[_BREAKDOWN[test.status]] += 1
    failed = next((t for t in item.tests if t.status != "success"), None)
    return {
        "problem_id": item.task_id,
        "item_id": item.item_id,
        "dataset": item.dataset,
        "timestamp": item.finished_at,
        "prompt": item.prompt,
        "response": item.response,
        "reasoning": item.reasoning,
        "raw_response": item.raw_response,
        "quality_metrics": {
            "pass_ratio": item.pass_ratio,
            "accepted": item.accepted,
            "final_status": item.status,
            "reason": item.reason,
            "score": item.score,
            "panel": None if item.panel is None else {
                "status": item.panel.status,
                "overall": item.panel.overall,
                "dimensions": item.panel.dimensions,
                "agreement": item.panel.agreement,
                "judges": {v.judge: v.overall if v.valid else v.error for v in item.judges},
            },
        },
        "cost_metrics": {
            "output_tokens": item.usage.completion_tokens,
            "total_judge_time": item.judge_time_s,
        },
        "error_breakdown": breakdown,
        "execution_details": {
            "first_failed_case": None
            if failed is None
            else {
                "name": failed.name,
                "input": failed.input,
                "expected": failed.expected,
                "actual": failed.actual,
                "stderr": failed.detail,
            }
        },
        "metadata": {
            "model": item.model,
            "temperature": temperature,
            "max_new_tokens": max_new_tokens,
        },
    }


def append_qa(path: Path, record: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, ensure_ascii=False) + "\n")
