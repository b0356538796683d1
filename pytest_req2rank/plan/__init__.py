"""Planning a run: run id, seed and the frozen item list."""

from ._plan import (
    DECLARED_SETTINGS,
    RunPlan,
    SampleCounts,
    build_plan,
    declared_settings,
    planned_tasks,
    select_tasks,
)

__all__ = [
    "DECLARED_SETTINGS",
    "RunPlan",
    "SampleCounts",
    "build_plan",
    "declared_settings",
    "planned_tasks",
    "select_tasks",
]
