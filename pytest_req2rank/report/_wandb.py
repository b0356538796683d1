"""Weights & Biases: one W&B run per benchmark run, from the results document.

Metrics keep the flat names of the results (``eval/{dataset}/{metric}``, pass@k as
``eval/{dataset}/pass@{k}``), beside ``run/…`` (score, CI95, dimensions, calls),
``judge/…`` (the panel), ``nversion/…`` (fault patterns, diversity) and ``baseline/…``;
all are logged in one step and set as the run's summary. The items and the Q&A samples are
``wandb.Table``s, the results JSON an artifact. ``wandb`` is an optional dependency (the
``wandb`` extra); ``WANDB_MODE=offline`` writes the run locally for a later ``wandb sync``.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import Req2RankError
from ._document import ModelSummary, ResultsDocument, RunSummary

ITEM_COLUMNS = ("item_id", "dataset", "task_id", "status", "score", "pass_ratio",
                "tests_passed", "tests_total", "prompt_tokens", "completion_tokens", "cost_usd",
                "judge_time_s", "reason")
SAMPLE_COLUMNS = ("dataset", "status", "item_id", "pass_ratio", "score", "prompt", "response",
                  "reason")


class WandbUnavailable(Req2RankError, RuntimeError):
    """W&B could not be used (not installed, or its run failed); the message is one line."""


def wandb_metrics(document: ResultsDocument) -> dict[str, float]:
    """Every metric the W&B run logs, by name (unknown values left out, ``"inf"`` infinite)."""
    summary = document.summary
    metrics: dict[str, float] = {}

    def put(name: str, value: Any) -> None:
        if value == "inf":
            value = math.inf
        if isinstance(value, bool):
            value = int(value)
        if isinstance(value, int | float):
            metrics[name] = value

    for name, value in summary.metrics.items():
        put(name, value)
    def figures(prefix: str, own: RunSummary | ModelSummary) -> None:
        put(f"{prefix}/score", own.overall_score)
        if own.ci95 is not None:
            put(f"{prefix}/ci95_low", own.ci95.low)
            put(f"{prefix}/ci95_high", own.ci95.high)
        put(f"{prefix}/items_total", own.items_total)
        put(f"{prefix}/items_planned", own.items_planned)
        for status, count in own.status_counts.items():
            put(f"{prefix}/status/{status}", count)
        for dimension, score in own.dimensions.items():
            put(f"{prefix}/dimensions/{dimension}", score)
        for field in ("calls", "prompt_tokens", "completion_tokens", "cost_usd"):
            put(f"{prefix}/{field}", getattr(own.totals, field))

    figures("run", summary)
    put("run/wall_time_s", summary.wall_time_s)
    judging = summary.judging
    if judging is not None:
        for field in ("items_judged", "judge_failed", "execution_weight", "sigma"):
            put(f"judge/{field}", getattr(judging, field))
        for dimension, value in judging.judge_dimensions.items():
            put(f"judge/dimensions/{dimension}", value)
        for dimension, alpha in judging.alpha.items():
            put(f"judge/alpha/{dimension}", alpha)
        for band, count in judging.agreement_counts.items():
            put(f"judge/agreement/{band}", count)
        for judge in judging.per_judge:
            for field in ("items", "scored", "invalid_answers", "failures", "mean_overall",
                          "mean_latency_s"):
                put(f"judge/{judge.judge}/{field}", getattr(judge, field))
    nversion = summary.nversion
    if nversion is not None:
        for field in ("versions", "tasks", "version_items", "versions_passed", "left_out"):
            put(f"nversion/{field}", getattr(nversion, field))
        for pattern in nversion.patterns:
            for field in ("fr", "mcr", "ccr", "tpr", "afvr", "tasks", "no_consensus", "faults",
                          "missing"):
                put(f"nversion/{pattern.pattern}/{field}", getattr(pattern, field))
        put("nversion/diversity/levenshtein", nversion.mean_levenshtein)
        put("nversion/diversity/structural", nversion.mean_structural)
    baseline = summary.baseline
    if baseline is not None:
        for field in ("baseline_score", "candidate_score", "diff", "diff_low", "diff_high",
                      "n_pairs"):
            put(f"baseline/{field}", getattr(baseline, field))
    if summary.detectable_difference is not None:
        put("run/detectable_difference", summary.detectable_difference.points)
    if summary.ranking is not None:
        for row in summary.ranking.models:
            for field in ("score", "score_low", "score_high", "diff_to_leader", "diff_low",
                          "diff_high", "rank", "rank_low", "rank_high", "group"):
                put(f"ranking/{row.model}/{field}", getattr(row, field))
    for model, own in (summary.by_model or {}).items():
        figures(f"model/{model}", own)
        for name, value in own.metrics.items():
            put(f"model/{model}/{name}", value)
    return metrics


def item_rows(document: ResultsDocument) -> list[list[Any]]:
    """The per-item table's rows (columns: :data:`ITEM_COLUMNS`)."""
    return [[item.item_id, item.dataset, item.task_id, item.status, item.score, item.pass_ratio,
             item.tests_passed, item.tests_total, item.usage.prompt_tokens,
             item.usage.completion_tokens, item.usage.cost_usd, item.judge_time_s,
             item.reason or ""] for item in document.items]


def sample_rows(document: ResultsDocument) -> list[list[Any]]:
    """The Q&A samples' table rows (columns: :data:`SAMPLE_COLUMNS`); none without samples."""
    samples = document.summary.qa_samples
    if samples is None:
        return []
    by_id = {item.item_id: item for item in document.items}
    return [[dataset, item.status, item.item_id, item.pass_ratio, item.score, item.prompt,
             item.response, item.reason or ""]
            for dataset, sample in samples.datasets.items() for item_id in sample.item_ids
            if (item := by_id.get(item_id)) is not None]


def log_to_wandb(document: ResultsDocument, project: str, *, results: Path | None = None,
                 directory: Path | None = None, environ: Mapping[str, str] | None = None
                 ) -> str:
    """Log the run to W&B ``[ENTITY/]PROJECT`` and return where it went (the run's URL, or
    its local directory offline). ``results``: the results JSON, logged as an artifact;
    ``directory``: where W&B writes its files unless ``WANDB_DIR`` says. Raises
    :class:`WandbUnavailable` with one line when W&B is missing or fails."""
    environ = os.environ if environ is None else environ
    if environ.get("WANDB_MODE", "").strip().lower() == "disabled":
        return "not logged: WANDB_MODE=disabled"
    try:
        import wandb
    except ImportError:
        raise WandbUnavailable("the wandb package is not installed; pip install "
                               "'pytest-req2rank[wandb]' (or pip install wandb)") from None
    entity, _, name = project.rpartition("/")
    run_info = document.run
    config = {"run": run_info.model_dump(mode="json", exclude={"settings"}),
              **run_info.settings}
    # Passed on every call: W&B reads its environment once per process.
    where_files = Path(environ["WANDB_DIR"]) if environ.get("WANDB_DIR") else directory
    mode: Any = environ.get("WANDB_MODE") or None  # wandb checks the value itself
    if where_files is not None:
        where_files.mkdir(parents=True, exist_ok=True)
    try:
        run = wandb.init(
            project=name, entity=entity or None, name=run_info.id, job_type="eval",
            config=config, dir=where_files, mode=mode,
            settings=wandb.Settings(console="off", silent=True),
            reinit="create_new",
        )
    except Exception as exc:  # noqa: BLE001 - W&B raises many kinds (network, auth, usage)
        raise WandbUnavailable(f"W&B run not started ({_one_line(exc)}); the run's own outputs "
                               "are kept") from None
    try:
        metrics = wandb_metrics(document)
        tables: dict[str, Any] = {"items": wandb.Table(columns=list(ITEM_COLUMNS),
                                                       data=item_rows(document))}
        samples = sample_rows(document)
        if samples:
            tables["qa_samples"] = wandb.Table(columns=list(SAMPLE_COLUMNS), data=samples)
        run.log({**metrics, **tables}, step=0)
        run.summary.update(metrics)
        if results is not None and results.is_file():
            artifact = wandb.Artifact(_artifact_name(run_info.id), type="results",
                                      metadata={"model": run_info.model,
                                                "suite": run_info.suite})
            artifact.add_file(str(results), name="results.json")
            run.log_artifact(artifact)
        where = run.url or Path(run.dir).parent  # offline: the run's own directory
        run.finish()
    except Exception as exc:  # noqa: BLE001 - as above: any of them means "not logged"
        run.finish(exit_code=1)
        raise WandbUnavailable(f"W&B logging failed ({_one_line(exc)}); the run's own outputs "
                               "are kept") from None
    return str(where)


def _artifact_name(run_id: str) -> str:
    return "req2rank-" + re.sub(r"[^A-Za-z0-9_.-]", "-", run_id)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."
