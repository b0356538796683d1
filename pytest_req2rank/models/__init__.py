"""Types shared by every part of the plugin (pydantic v2): the bottom layer, importing none of them."""

from ._dimensions import (
    DEFAULT_EXECUTION_WEIGHT,
    DEFAULT_WEIGHTS,
    DIMENSIONS,
    SCORE_MAX,
    SCORE_MIN,
    dimension_weights,
    parse_weights,
    validated_judge_scores,
)
from ._final_status import final_status
from ._isolation import WEAK_ISOLATION, IsolationLevel
from ._json_path import field_path
from ._judging import JudgeVerdict, PanelResult
from ._nversion import (
    GenerationConfig,
    GenerationRecord,
    MBCSResult,
    MeasureStatus,
    NVersionRecord,
    SDPResult,
    TransitionRecord,
    VersionLineage,
)
from ._pass_ratio import pass_ratio_by_priority, weighted_pass_ratio
from ._requirement import (
    FunctionalRequirement,
    Guidance,
    Interface,
    ProjectRequirement,
    RequirementMetadata,
)
from ._results import ExecutionResult, ItemResult, TestOutcome, Timings
from ._specs import (
    BUILTIN_PREFIX,
    DEFAULT_CONCURRENCY,
    FAKE_PREFIX,
    REFERENCE_MODEL,
    SAMPLES_PREFIX,
    STATIC_JUDGE,
    SUITE_NAMES,
    ModelSpec,
    ProcessMode,
    SandboxSpec,
    SuiteSpec,
    dataset_name,
    parse_judges,
)
from ._status import INFRA_STATUSES, STATUSES, Status, TestStatus
from ._task import IOCase, Priority, Probe, Task, sample_item_id
from ._taxonomy import COMPLEXITIES, DOMAINS, SKILLS, Complexity, scenario_ids
from ._usage import Usage

__all__ = [
    "BUILTIN_PREFIX",
    "COMPLEXITIES",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_EXECUTION_WEIGHT",
    "DEFAULT_WEIGHTS",
    "DIMENSIONS",
    "DOMAINS",
    "FAKE_PREFIX",
    "INFRA_STATUSES",
    "REFERENCE_MODEL",
    "SAMPLES_PREFIX",
    "SCORE_MAX",
    "SCORE_MIN",
    "SKILLS",
    "STATIC_JUDGE",
    "STATUSES",
    "SUITE_NAMES",
    "WEAK_ISOLATION",
    "Complexity",
    "ExecutionResult",
    "FunctionalRequirement",
    "GenerationConfig",
    "GenerationRecord",
    "Guidance",
    "IOCase",
    "Interface",
    "IsolationLevel",
    "ItemResult",
    "JudgeVerdict",
    "MBCSResult",
    "MeasureStatus",
    "ModelSpec",
    "NVersionRecord",
    "PanelResult",
    "Priority",
    "Probe",
    "ProcessMode",
    "ProjectRequirement",
    "RequirementMetadata",
    "SDPResult",
    "SandboxSpec",
    "Status",
    "SuiteSpec",
    "Task",
    "TestOutcome",
    "TestStatus",
    "Timings",
    "TransitionRecord",
    "Usage",
    "VersionLineage",
    "dataset_name",
    "dimension_weights",
    "field_path",
    "final_status",
    "parse_judges",
    "parse_weights",
    "pass_ratio_by_priority",
    "sample_item_id",
    "scenario_ids",
    "validated_judge_scores",
    "weighted_pass_ratio",
]
