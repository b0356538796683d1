"""What each benchmark item records with pytest's ``record_property`` (``--junitxml`` then
carries it as the test case's properties), and what a run of several models records for the
whole session (the test suite's properties: its ranking)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest

    from ..models import ItemResult
    from ..report import RankingSection


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


RANK_FIELDS = ("rank", "rank_low", "rank_high", "group", "requirements")
SCORE_FIELDS = ("score", "score_low", "score_high", "diff_to_leader", "diff_low", "diff_high")
"""A ranked model's properties: whole numbers, and scores (two decimals)."""


def ranking_properties(ranking: RankingSection) -> list[tuple[str, str]]:
    """The ranking of a run of several models, best first: how it was computed, then per model
    ``r2r_ranking/MODEL/…`` its rank, rank interval, group and requirements, its score and
    CI, its difference to the leader and CI (the names W&B logs, under ``r2r_``)."""
    found = [("r2r_ranking_models", ",".join(row.model for row in ranking.models)),
             ("r2r_ranking_paired", str(ranking.paired).lower()),
             ("r2r_ranking_level", f"{ranking.level:g}")]
    for row in ranking.models:
        values = row.model_dump()
        found += [(f"r2r_ranking/{row.model}/{key}", str(values[key])) for key in RANK_FIELDS]
        found += [(f"r2r_ranking/{row.model}/{key}", f"{values[key]:.2f}")
                  for key in SCORE_FIELDS]
    return found


def record_suite_properties(config: pytest.Config, properties: list[tuple[str, str]]) -> None:
    """Add ``properties`` to the test suite of the session's ``--junitxml`` file (none asked:
    nothing). Before pytest writes the file, at the end of the session."""
    # pytest's writer is reached only through its stash key: no public hook adds a suite's
    # properties after the tests ran (pytest-dev/pytest#7767); a pytest without it gets none
    try:
        from _pytest.junitxml import xml_key
    except ImportError:
        return
    xml = config.stash.get(xml_key, None)
    if xml is None:
        return
    for name, value in properties:
        xml.add_global_property(name, value)
