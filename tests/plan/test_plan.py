"""The run plan: deterministic sampling, fresh ids."""

from __future__ import annotations

from pytest_req2rank.plan import build_plan, new_run_id
from pytest_req2rank.suites import load_suite


def test_sample_is_deterministic_and_ordered() -> None:
    tasks = load_suite("humaneval")
    a = build_plan(tasks, model="m", suite="humaneval", seed=7, sample=10)
    b = build_plan(tasks, model="m", suite="humaneval", seed=7, sample=10)
    c = build_plan(tasks, model="m", suite="humaneval", seed=8, sample=10)
    assert a.item_ids == b.item_ids
    assert a.item_ids != c.item_ids
    assert len(a.item_ids) == 10
    order = [t.item_id for t in tasks]
    assert list(a.item_ids) == sorted(a.item_ids, key=order.index)


def test_full_plan_and_random_seed() -> None:
    tasks = load_suite("humaneval")
    plan = build_plan(tasks, model="m", suite="humaneval", seed=None, sample=None)
    assert len(plan.item_ids) == 164
    assert 0 <= plan.seed < 2**31
    assert plan.run_id != new_run_id()
