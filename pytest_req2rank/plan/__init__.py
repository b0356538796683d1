"""Planning a run: run id, seed and the frozen item list."""

from ._plan import RunPlan, build_plan, new_run_id, new_seed

__all__ = [
    "RunPlan",
    "build_plan",
    "new_run_id",
    "new_seed",
]
