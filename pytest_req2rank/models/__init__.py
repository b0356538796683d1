"""Data models shared by every part of the plugin (pydantic v2)."""

from ._judging import JudgeVerdict, PanelResult
from ._results import ExecutionResult, ItemResult, TestOutcome, Timings
from ._status import INFRA_STATUSES, MODEL_STATUSES, STATUSES, Status, TestStatus
from ._task import IOCase, Priority, Probe, Task, TaskForm
from ._usage import Usage

__all__ = [
    "INFRA_STATUSES",
    "MODEL_STATUSES",
    "STATUSES",
    "ExecutionResult",
    "IOCase",
    "ItemResult",
    "JudgeVerdict",
    "PanelResult",
    "Priority",
    "Probe",
    "Status",
    "Task",
    "TaskForm",
    "TestOutcome",
    "TestStatus",
    "Timings",
    "Usage",
]
