"""The results JSON: a versioned document, its JSON Schema, validation and writing."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final, Literal

import jsonschema_rs
from pydantic import BaseModel, ConfigDict, Field

from ..errors import Req2RankError
from ..models import IsolationLevel, ItemResult, Status
from ._nversion import NVersionSummary
from ._samples import QaSamples

SCHEMA_VERSION: Final = 6
"""6: ``summary.by_model`` (a run of several models: each model's own summary); a version-5
document is a version-6 one without it.
5: ``summary.ranking`` (a run of several models: its ranking table); a version-4 document is
a version-5 one without it.
4: ``summary.detectable_difference`` (the smallest difference the run could detect); a
version-3 document is a version-4 one without it.
3: the status ``truncated`` (and its ``truncated_rate``), items' ``reasoning``,
``raw_response`` and ``finish_reason``; a version-2 document is a version-3 one without them.
2: N-version runs (``summary.nversion``, ``items[].nversion``; their ensemble checks are
not in the score); a version-1 document is a version-2 one without them."""
SCHEMA_FILE = "results.schema.json"


ItemRole = Literal["target", "judges", "generator"]
"""The roles whose calls are made for one item: its model, its judges, its generator."""
Role = Literal["target", "judges", "generator", "diversity", "preflight"]
"""Every role of a run's model calls (the summary's ``totals_by_role``)."""


class RunInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    seed: int
    model: str
    suite: str
    judges: list[str] = Field(default_factory=list)
    sandbox: str
    isolation: IsolationLevel | None = Field(
        default=None, description="How strongly the sandbox kept the code from the host "
        "(full, remote, namespaces, rlimits); absent in results written before it was recorded")
    plugin_version: str
    started_at: str
    finished_at: str
    settings: dict[str, Any] = Field(default_factory=dict)


class ScoreInterval(BaseModel):
    model_config = ConfigDict(extra="forbid")

    low: float
    high: float
    method: str


class Totals(BaseModel):
    """Tokens and cost summed over items; ``None`` when unknown."""

    model_config = ConfigDict(extra="forbid")

    calls: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = Field(
        default=None, description="The part of completion_tokens spent reasoning, where the "
        "provider reported it")
    cost_usd: float | None = None


class ResumedRun(BaseModel):
    """A resumed run (``--r2r-resume``): the items kept from its earlier sessions apart from
    those this session ran, with the model calls of each."""

    model_config = ConfigDict(extra="forbid")

    kept: int = Field(description="Items whose results were kept from earlier sessions, not "
                      "run again")
    run_now: int = Field(description="Items this session ran (those lost to infrastructure "
                         "before included)")
    kept_totals: Totals = Field(description="The kept items' model calls, tokens and cost, "
                                "made by earlier sessions")
    session_totals: Totals = Field(description="This session's items' model calls, tokens and "
                                   "cost; an answer replayed from the store counts no call")


class JudgeReport(BaseModel):
    """How one judge of the panel did over the run."""

    model_config = ConfigDict(extra="forbid")

    judge: str
    items: int = Field(description="Items put before this judge")
    scored: int = Field(description="Verdicts that counted")
    invalid_answers: int = Field(description="Answers dropped as invalid (after the JSON fallback)")
    invalid_answer_rate: float | None = Field(
        default=None, description="The share of this judge's answers that could not be read: "
        "invalid_answers / (scored + invalid_answers); None when no answer came (every call "
        "failed), or in results written before it was recorded")
    failures: int = Field(description="Verdicts dropped for another reason (provider errors)")
    mean_overall: float | None = Field(description="Mean of this judge's own overall scores")
    mean_latency_s: float | None
    self_judging: bool = Field(description="Of the target's model family")
    usage: Totals = Field(default_factory=Totals)


class JudgingSummary(BaseModel):
    """The panel over the run: what it scored, how much its judges agreed, what each one did."""

    model_config = ConfigDict(extra="forbid")

    judges: list[str]
    items_judged: int = Field(description="Items the panel scored")
    judge_failed: int = Field(description="Items every judge failed on (excluded from the score)")
    execution_weight: float
    judge_dimensions: dict[str, float] = Field(
        description="Mean of the panel's own dimension scores, before the execution blend"
    )
    sigma: float | None = Field(description="Mean panel sigma over items with two or more judges")
    agreement_counts: dict[str, int] = Field(description="Items per agreement band")
    alpha: dict[str, float | None] = Field(
        description="Krippendorff's alpha (interval) per dimension across judges; None: undefined"
    )
    mean_item_ci95: ScoreInterval | None = Field(
        description="Each item's CI95 over its judges (the panel's spread), averaged over items"
    )
    per_judge: list[JudgeReport]


class GateReport(BaseModel):
    """One quality gate's verdict."""

    model_config = ConfigDict(extra="forbid")

    name: str
    passed: bool
    message: str


class RegressionReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    requirement: str
    baseline: float
    candidate: float
    diff: float


class BaselineReport(BaseModel):
    """This run against the baseline run it repeated, paired by requirement."""

    model_config = ConfigDict(extra="forbid")

    path: str
    run_id: str
    baseline_score: float
    candidate_score: float
    diff: float
    diff_low: float
    diff_high: float
    n_pairs: int
    max_drop: float
    worst: list[RegressionReport] = Field(default_factory=list)


class PassAtK(BaseModel):
    """pass@k of one dataset from its tasks' samples (infrastructure failures are no sample)."""

    model_config = ConfigDict(extra="forbid")

    tasks: int = Field(description="Tasks with at least one counted sample")
    samples: int = Field(description="Counted samples: items not api_error or sandbox_error")
    correct: int = Field(description="Counted samples with status success")
    min_samples: int = Field(description="Fewest counted samples of a task: k is reported up to it")
    max_samples: int = Field(description="Most counted samples of a task")
    values: dict[str, float] = Field(
        description="pass@k for k in 1, 10, 100 up to min_samples, keyed 'pass@1', ...; the mean "
        "over tasks of the unbiased estimator 1 - C(n-c, k) / C(n, k)"
    )


class DetectableDifference(BaseModel):
    """The smallest true score difference a run of this size detects with 80 % power at
    alpha = 0.05 (docs/rankings.md, Power)."""

    model_config = ConfigDict(extra="forbid")

    points: float = Field(description="The difference in score points (0-100)")
    requirements: int = Field(description="Requirements (clusters) scored")
    sd: float = Field(description="Standard deviation of the per-requirement differences the "
                      "figure assumes, in score points")
    basis: Literal["like-model", "paired"] = Field(
        description="like-model: against a second model of this run's per-requirement spread, "
        "uncorrelated with it (the conservative figure); paired: measured from two models' "
        "differences on shared requirements")
    power: float = 0.8
    alpha: float = 0.05


class RankedRow(BaseModel):
    """One model's row of a ranking table (docs/rankings.md)."""

    model_config = ConfigDict(extra="forbid")

    model: str
    score: float = Field(description="The model's mean item score, 0-100")
    score_low: float
    score_high: float
    diff_to_leader: float = Field(description="Score minus the leader's (0 for the leader)")
    diff_low: float
    diff_high: float
    rank: int = Field(description="1 + the models with a higher score")
    rank_low: int
    rank_high: int = Field(description="The rank interval: the ranks the model takes in the "
                           "central resamples of the requirements")
    group: int = Field(description="1-based; the data separate every model of a group from "
                       "every model of another")
    requirements: int = Field(description="Requirements (clusters) with a score")


class RankingSection(BaseModel):
    """The ranking of a run's models, best first: scores, paired differences, rank intervals."""

    model_config = ConfigDict(extra="forbid")

    paired: bool = Field(description="Each resample drew the same requirements for every model")
    level: float = Field(description="The confidence level of every interval")
    n_resamples: int
    seed: int = Field(description="The bootstrap's seed (the run's)")
    models: list[RankedRow]
    groups: list[list[str]] = Field(description="The models of each group, best group first")


class ModelSummary(BaseModel):
    """One model of a run of several models, over the items it answered alone: the figures a
    run of that model alone reports (docs/rankings.md, Each model's summary)."""

    model_config = ConfigDict(extra="forbid")

    overall_score: float | None = Field(
        description="0-100: the mean score of the model's scored items (for static suites "
        "100 x accepted@1)")
    ci95: ScoreInterval | None = None
    dimensions: dict[str, float] = Field(default_factory=dict)
    agreement: Literal["high", "moderate", "low"] | None = None
    items_total: int = Field(description="The model's finished items")
    items_planned: int = Field(description="The items the plan asked the model")
    status_counts: dict[Status, int]
    phase0: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Phase-0 metrics per dataset; infinity is the string "
        "'inf'; throughput is the model's problems per second of the run's wall time")
    pass_at_k: dict[str, PassAtK] = Field(default_factory=dict)
    metrics: dict[str, float | str | None] = Field(
        default_factory=dict, description="Flat eval/{dataset}/{metric} names")
    warnings: list[str] = Field(
        default_factory=list, description="The model's metrics outside their normal range, "
        "and what the judges did on its answers")
    totals: Totals = Field(default_factory=Totals, description="Every role, for this model's "
                           "items")
    totals_by_role: dict[ItemRole, Totals] = Field(
        default_factory=dict, description="The model's own calls (target), the judges' calls "
        "on its answers, the generator's calls for its items")
    judging: JudgingSummary | None = Field(
        default=None, description="The panel over this model's answers")


class RunSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    overall_score: float | None = Field(
        description="0-100: the mean item score over scored items (for static suites 100 x "
        "accepted@1); in a run of several models, and so every figure of the summary but "
        "by_model, ranking and detectable_difference, over every model's items together"
    )
    ci95: ScoreInterval | None = None
    detectable_difference: DetectableDifference | None = Field(
        default=None, description="The smallest difference this run could detect; None with "
        "fewer than two scored requirements, when every requirement scored the same, or in "
        "results written before it was recorded")
    dimensions: dict[str, float] = Field(default_factory=dict)
    agreement: Literal["high", "moderate", "low"] | None = None
    items_total: int
    items_planned: int
    status_counts: dict[Status, int]
    phase0: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Phase-0 metrics per dataset; infinity is the string 'inf'"
    )
    pass_at_k: dict[str, PassAtK] = Field(
        default_factory=dict, description="pass@k per dataset (tasks with no counted sample "
        "left out); absent in results written before it was recorded"
    )
    metrics: dict[str, float | str | None] = Field(
        default_factory=dict, description="Flat eval/{dataset}/{metric} names, pass@k as "
        "eval/{dataset}/pass@{k}"
    )
    warnings: list[str] = Field(default_factory=list)
    totals: Totals = Field(default_factory=Totals, description="Every role together")
    totals_by_role: dict[Role, Totals] = Field(
        default_factory=dict, description="Calls, tokens and cost of each role (diversity: an "
        "N-version run's SDP judge and embedding model; preflight: the one tiny request to "
        "each model before the first item, absent when it was skipped)"
    )
    judging: JudgingSummary | None = None
    gates: list[GateReport] = Field(default_factory=list)
    baseline: BaselineReport | None = None
    resumed: ResumedRun | None = Field(
        default=None, description="A resumed run: the items and model calls kept from earlier "
        "sessions, apart from this session's; None for a run made in one session")
    nversion: NVersionSummary | None = Field(
        default=None, description="N-version runs: the fault patterns' metrics and the "
        "versions' diversity; the score and Phase-0 metrics cover the version items only")
    qa_samples: QaSamples | None = Field(
        default=None, description="Items drawn per dataset, stratified by final status "
        "(--r2r-qa-samples); absent when none were asked for")
    ranking: RankingSection | None = Field(
        default=None, description="A run of several models (items ITEM@MODEL): their ranking "
        "table, paired over the requirements; None in a run of one model")
    by_model: dict[str, ModelSummary] | None = Field(
        default=None, description="A run of several models: each model's summary over the "
        "items it answered, by model in the run's order; None in a run of one model")
    wall_time_s: float


class ResultsDocument(BaseModel):
    """Everything a run produced: the results JSON (docs/results-json.md)."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1, 2, 3, 4, 5, 6] = SCHEMA_VERSION
    run: RunInfo
    summary: RunSummary
    items: list[ItemResult]


def load_results(path: Path) -> ResultsDocument:
    """Read and validate a results JSON; ``ValueError`` with a one-line message when it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path}: no such results file; pass the results.json of an earlier run") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a readable results JSON ({exc})") from None
    try:
        validate_results(data)
    except InvalidResults as exc:
        raise ValueError(f"{path}: not a valid results JSON at {exc.where}: {exc.message}") from None
    return ResultsDocument.model_validate(data)


def generated_schema() -> dict[str, Any]:
    """The JSON Schema derived from the models (the shipped file must equal it)."""
    schema = ResultsDocument.model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://github.com/req2rank/pytest-req2rank/results.schema.json"
    return schema


@cache
def results_schema() -> dict[str, Any]:
    """The JSON Schema shipped in the package."""
    text = resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


class InvalidResults(Req2RankError, ValueError):
    """A document that is not a valid results JSON: ``where`` it fails (a JSON path) and why."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where, self.message = where, message


@cache
def _results_validator() -> jsonschema_rs.Draft202012Validator:
    # jsonschema-rs: the Python ``jsonschema`` costs about 1.6 ms an item, a run's whole
    # results validated on every write.
    return jsonschema_rs.Draft202012Validator(results_schema())


def validate_results(data: dict[str, Any]) -> None:
    """Raise :class:`InvalidResults` when ``data`` is not a valid results document."""
    try:
        _results_validator().validate(data)
    except jsonschema_rs.ValidationError as exc:
        where = "/".join(str(part) for part in exc.instance_path) or "the top level"
        raise InvalidResults(where, exc.message) from None


def write_results(document: ResultsDocument, path: Path) -> None:
    """Validate, then write atomically (a reader never sees half a file)."""
    data = document.model_dump(mode="json")
    validate_results(data)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
