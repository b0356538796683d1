"""The run plan: deterministic sampling, fresh ids, samples of a task."""

from __future__ import annotations

from pytest_req2rank.draws import new_run_id, sample_seed
from pytest_req2rank.models import Task
from pytest_req2rank.plan import RunPlan, build_plan, planned_tasks
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


def test_samples_are_items_with_their_index_and_ids_stay_without_them() -> None:
    tasks = load_suite("humaneval")[:3]
    once = build_plan(tasks, model="m", suite="humaneval", seed=1, sample=None, samples=1)
    assert once.item_ids == ("humaneval/HumanEval_0", "humaneval/HumanEval_1",
                             "humaneval/HumanEval_2") and once.samples == 1
    assert planned_tasks(once, tasks) == {task.item_id: task for task in tasks}
    plan = build_plan(tasks, model="m", suite="humaneval", seed=1, sample=2, samples=3)
    chosen = [t for t in tasks if f"{t.item_id}/s0" in plan.item_ids]
    assert len(chosen) == 2 and plan.samples == 3
    assert plan.item_ids == tuple(f"{t.item_id}/s{k}" for t in chosen for k in range(3))
    planned = planned_tasks(plan, load_suite("humaneval"))
    assert list(planned) == list(plan.item_ids)
    for item_id, task in planned.items():
        assert task.item_id == item_id and item_id.endswith(f"/s{task.sample}")
        assert task.task_item_id == item_id.rsplit("/", 1)[0]
    assert RunPlan.model_validate_json(plan.model_dump_json()) == plan


def test_a_samples_file_gives_each_task_its_own_count() -> None:
    tasks = load_suite("humaneval")[:3]
    plan = build_plan(tasks, model="m", suite="humaneval", seed=1, sample=None,
                      samples={"HumanEval/0": 2, "HumanEval/2": 1})
    assert plan.item_ids == ("humaneval/HumanEval_0/s0", "humaneval/HumanEval_0/s1",
                             "humaneval/HumanEval_1/s0", "humaneval/HumanEval_2/s0")
    assert plan.samples == 2
    one_each = build_plan(tasks, model="m", suite="humaneval", seed=1, sample=None,
                          samples={"HumanEval/0": 1})
    assert one_each.item_ids == tuple(task.item_id for task in tasks)


def test_a_plan_item_the_suite_lacks_is_left_out() -> None:
    tasks = load_suite("humaneval")[:2]
    plan = build_plan(tasks, model="m", suite="humaneval", seed=1, sample=None, samples=2)
    assert list(planned_tasks(plan, tasks[1:])) == [
        "humaneval/HumanEval_1/s0", "humaneval/HumanEval_1/s1"]


def test_sample_seeds_are_the_run_seed_first_then_distinct_and_reproducible() -> None:
    seeds = [sample_seed(42, k) for k in range(200)]
    assert seeds[0] == 42 and len(set(seeds)) == 200
    assert seeds == [sample_seed(42, k) for k in range(200)]
    assert all(0 <= seed < 2**31 for seed in seeds)
    assert sample_seed(43, 1) != sample_seed(42, 1)
    assert sample_seed(None, 3) is None


def test_an_item_id_splits_into_its_task_and_sample() -> None:
    tasks = load_suite("humaneval")[:2]
    sampled = build_plan(tasks, model="m", suite="humaneval", seed=1, sample=None, samples=12)
    assert sampled.split_item_id("humaneval/HumanEval_1/s11") == ("humaneval/HumanEval_1", 11)
    assert sampled.split_item_id("humaneval/HumanEval_1/s01") == ("humaneval/HumanEval_1/s01", None)
    once = build_plan(tasks, model="m", suite="humaneval", seed=1, sample=None)
    # a run asking once per task has no sample ids, whatever a task's id looks like
    assert once.split_item_id("d/task/s3") == ("d/task/s3", None)


def test_several_models_answer_the_same_planned_items() -> None:
    tasks = [Task(item_id=f"d/t{k}", dataset="d", task_id=f"t{k}", form="function", prompt="p",
                  reference="def f(): pass", entry_point="f", test="def check(c): pass")
             for k in range(5)]
    one = build_plan(tasks, model="a", suite="s", seed=3, sample=3)
    several = build_plan(tasks, model="a,b/x:1", suite="s", seed=3, sample=3,
                         models=["a", "b/x:1"])
    assert "@" not in "".join(one.item_ids)
    assert several.item_ids == tuple(f"{item}@{model}" for item in one.item_ids
                                     for model in ("a", "b/x:1"))
    planned = planned_tasks(several, tasks)
    assert list(planned) == list(several.item_ids)
    assert {task.item_id for task in planned.values()} == set(several.item_ids)
    assert planned[f"{one.item_ids[0]}@b/x:1"].task_id == planned[f"{one.item_ids[0]}@a"].task_id
    # the requirement every model answers: the run pairs its models on it
    assert {task.task_item_id for task in planned.values()} == set(one.item_ids)
