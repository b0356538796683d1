"""What each benchmark item records with pytest's ``record_property``: ``--junitxml`` then
carries it as the test case's properties."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..models import ItemResult


def item_properties(result: ItemResult) -> list[tuple[str, str]]:
    """Status, score, pass ratio, tests, tokens and cost of an item; unknown values (no
    score, an offline model's tokens and cost) are left out."""
    values: list[tuple[str, object]] = [
        ("r2r_status", result.status),
        ("r2r_score", None if result.score is None else f"{result.score:.2f}"),
        ("r2r_pass_ratio", f"{result.pass_ratio:.4f}"),
        ("r2r_tests", f"{result.tests_passed}/{result.tests_total}"),
        ("r2r_prompt_tokens", result.usage.prompt_tokens),
        ("r2r_completion_tokens", result.usage.completion_tokens),
        ("r2r_cost_usd", None if result.usage.cost_usd is None else f"{result.usage.cost_usd:.6f}"),
    ]
    return [(name, str(value)) for name, value in values if value is not None]
