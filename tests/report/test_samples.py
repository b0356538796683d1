"""Stratified Q&A samples: how N is split over the final statuses, and a deterministic draw."""

from __future__ import annotations

import random

import pytest

from pytest_req2rank.models import ItemResult
from pytest_req2rank.report import allocate, sample_records, stratified_sample


def items(counts: dict[str, int], dataset: str = "d") -> list[ItemResult]:
    return [ItemResult(item_id=f"{dataset}/{status}-{k}", dataset=dataset,
                       task_id=f"{status}-{k}", model="m", status=status)  # type: ignore[arg-type]
            for status, n in counts.items() for k in range(n)]


@pytest.mark.parametrize(("available", "n", "drawn"), [
    # equally over the statuses present, the remainder to the first ones alphabetically
    ({"success": 9, "wrong_answer": 9, "timeout": 9}, 7,
     {"success": 3, "timeout": 2, "wrong_answer": 2}),
    # a status short of its share gives all it has; the rest goes to the others
    ({"success": 1, "wrong_answer": 20, "syntax_error": 2}, 12,
     {"success": 1, "syntax_error": 2, "wrong_answer": 9}),
    # fewer items than asked: all of them
    ({"success": 2, "timeout": 1}, 10, {"success": 2, "timeout": 1}),
    ({"success": 2, "timeout": 1}, 0, {"success": 0, "timeout": 0}),
    # fewer than the statuses: the first ones alphabetically
    ({"wrong_answer": 4, "api_error": 1, "success": 3}, 2,
     {"api_error": 1, "success": 1, "wrong_answer": 0}),
    ({"success": 5, "timeout": 0}, 3, {"success": 3}),
])
def test_allocation(available: dict[str, int], n: int, drawn: dict[str, int]) -> None:
    assert allocate(available, n) == drawn


def test_a_negative_count_is_refused() -> None:
    with pytest.raises(ValueError, match="must not be negative"):
        allocate({"success": 1}, -1)


def test_the_draw_follows_the_allocation_per_dataset() -> None:
    pool = items({"success": 10, "wrong_answer": 6, "timeout": 1}) + items(
        {"syntax_error": 3}, dataset="other")
    samples = stratified_sample(pool, 6, seed=7)
    by_id = {item.item_id: item for item in pool}
    first, other = samples.datasets["d"], samples.datasets["other"]
    assert first.available == {"success": 10, "timeout": 1, "wrong_answer": 6}
    assert first.drawn == {"success": 3, "timeout": 1, "wrong_answer": 2}
    assert [by_id[i].status for i in first.item_ids] == ["success"] * 3 + ["timeout"] + [
        "wrong_answer"] * 2
    assert len(set(first.item_ids)) == 6
    assert other.drawn == {"syntax_error": 3} and sorted(other.item_ids) == [
        "other/syntax_error-0", "other/syntax_error-1", "other/syntax_error-2"]


def test_the_same_seed_draws_the_same_items_whatever_their_order() -> None:
    pool = items({"success": 30, "wrong_answer": 30})
    shuffled = list(pool)
    random.Random(1).shuffle(shuffled)
    assert stratified_sample(pool, 8, seed=3) == stratified_sample(shuffled, 8, seed=3)
    draws = {tuple(stratified_sample(pool, 8, seed=s).datasets["d"].item_ids) for s in range(5)}
    assert len(draws) > 1, "the seed does not change the draw"


def test_records_are_the_q_and_a_log_records_of_the_drawn_items() -> None:
    pool = items({"success": 4, "timeout": 4})
    samples = stratified_sample(pool, 3, seed=1)
    records = sample_records(pool, samples, temperature=0.5, max_new_tokens=99)
    assert [r["item_id"] for r in records] == samples.datasets["d"].item_ids
    assert {r["metadata"]["temperature"] for r in records} == {0.5}
    assert [r["quality_metrics"]["final_status"] for r in records] == [
        "success", "success", "timeout"]
