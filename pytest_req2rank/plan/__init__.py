"""Planning a run: run id, seed and the frozen item list."""

from ._plan import RunPlan, SampleCounts, build_plan, new_run_id, new_seed, planned_tasks, select_tasks

__all__ = [
    "RunPlan",
    "SampleCounts",
    "build_plan",
    "new_run_id",
    "new_seed",
    "planned_tasks",
    "select_tasks",
]
