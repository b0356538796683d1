"""Planning a run: run id, seed and the frozen item list."""

from ._declared import DECLARED_SETTINGS, declared_settings
from ._plan import (
    RunPlan,
    SampleCounts,
    build_plan,
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
