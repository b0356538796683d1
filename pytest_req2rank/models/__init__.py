"""Data models shared by every part of the plugin (pydantic v2)."""

from ._final_status import FINAL_STATUS_PRIORITY, final_status, normalize_test_status
from ._isolation import WEAK_ISOLATION, IsolationLevel
from ._judging import JudgeVerdict, PanelResult
from ._results import ExecutionResult, ItemResult, TestOutcome, Timings
from ._status import INFRA_STATUSES, MODEL_STATUSES, STATUSES, Status, TestStatus
from ._task import IOCase, Priority, Probe, Task, TaskForm
from ._usage import Usage

__all__ = [
    "FINAL_STATUS_PRIORITY",
    "INFRA_STATUSES",
    "MODEL_STATUSES",
    "STATUSES",
    "WEAK_ISOLATION",
    "ExecutionResult",
    "IOCase",
    "IsolationLevel",
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
    "final_status",
    "normalize_test_status",
]
