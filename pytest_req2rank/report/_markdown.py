"""The Markdown report of a run: model, score and gates, then one quality, error-distribution
and cost table with a row per dataset (the Phase-0 report's layout), from the results document.

GitHub renders it on a job's summary page when it is appended to ``GITHUB_STEP_SUMMARY``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..models import BUILTIN_PREFIX, Status
from ..scoring import ERROR_DISTRIBUTION_STATUSES
from ._document import (
    BaselineReport,
    ModelSummary,
    PassAtK,
    RankingSection,
    ResultsDocument,
    RunSummary,
    Totals,
)
from ._nversion import NVersionSummary
from ._run import item_counts
from ._samples import SAMPLES_FILE, QaSamples
from ._terminal import _num, _pct, _ratio, _secs, score_meaning

STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
"""The file GitHub Actions shows on a job's summary page (Markdown appended to it)."""
REPORT_FILE = "report.md"

Document = ResultsDocument | Mapping[str, Any]


def as_document(document: Document) -> ResultsDocument:
    """A results document, from the model or from the dict written as results JSON."""
    return document if isinstance(document, ResultsDocument) else \
        ResultsDocument.model_validate(document)


def report_path(results: Path) -> Path:
    """Where the Markdown report of the results JSON ``results`` goes: ``report.md`` beside
    a ``results.json``, ``NAME.md`` beside any other ``NAME.json``."""
    if results.name == "results.json":
        return results.with_name(REPORT_FILE)
    return results.with_suffix(".md")


def render_markdown(document: Document, baseline: Document | None = None) -> str:
    """The report as Markdown. ``baseline``: the results document of the run this one was
    compared with (``--r2r-baseline``), for its metrics beside this run's; the difference
    and its CI95 are the comparison's own (``summary.baseline``)."""
    doc = as_document(document)
    before = None if baseline is None else as_document(baseline)
    summary = doc.summary
    parts = [f"# req2rank report: {_code(doc.run.model)} on {_code(doc.run.suite)}",
             _model_info(doc), _score(summary)]
    if summary.ranking is not None:
        parts.append(_ranking(summary.ranking))
    if summary.baseline is not None:
        parts.append(_before_after(summary.baseline, doc, before))
    if summary.phase0:
        parts += [_quality(summary), _errors(summary), _cost(summary)]
    if summary.nversion is not None:
        parts.append(_nversion(summary.nversion))
    parts.append(_usage(summary))
    if summary.warnings:
        parts.append("## Warnings\n\n" + "\n".join(f"- {_text(w)}" for w in summary.warnings))
    if summary.qa_samples is not None:
        parts.append(_samples(doc, summary.qa_samples))
    return "\n\n".join(parts) + "\n"


def write_markdown(document: Document, path: Path, baseline: Document | None = None) -> Path:
    """Write the report to ``path`` (its directory created) and return ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_markdown(document, baseline), encoding="utf-8")
    return path


def append_step_summary(markdown: str, environ: Mapping[str, str] = os.environ) -> Path | None:
    """Append ``markdown`` to the file named by ``GITHUB_STEP_SUMMARY``; None when unset."""
    name = environ.get(STEP_SUMMARY_ENV, "").strip()
    if not name:
        return None
    path = Path(name)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(markdown if markdown.endswith("\n") else markdown + "\n")
    return path


def _samples_per_task(doc: ResultsDocument) -> str:
    """How many samples each task had, from the items (a samples file decides the count, not
    ``--r2r-samples-per-task``); the setting when no item has a sample index."""
    most: dict[tuple[str, str], int] = {}
    for item in doc.items:
        if item.sample is not None:
            key = (item.cluster or item.task_id, item.model)
            most[key] = max(most.get(key, 0), item.sample + 1)
    counts = sorted(set(most.values())) or [int(doc.run.settings.get("samples_per_task") or 1)]
    low, high = counts[0], counts[-1]
    if low == high:
        return "1 sample per task" if low == 1 else f"{low} samples per task"
    return f"{low} to {high} samples per task"


def _model_info(doc: ResultsDocument) -> str:
    run, summary = doc.run, doc.summary
    settings = run.settings
    temperature = settings.get("temperature", 0.0)
    finished, planned = item_counts(summary)
    protocol = f"{_samples_per_task(doc)}, temperature {temperature}"
    models = (f"- Models: {', '.join(_code(model) for model in summary.by_model)}"
              if summary.by_model is not None else f"- Model: {_code(run.model)}")
    lines = [
        models,
        f"- Suite: {_code(run.suite)} ({finished} of {planned} items finished)",
        f"- Protocol: {protocol}",
        f"- Judges: {_judges(doc)}",
        f"- Run: {_code(run.id)}, seed {run.seed}",
        f"- Sandbox: isolation {run.isolation or 'unknown'} ({_text(run.sandbox)})",
        f"- Date: {run.started_at} to {run.finished_at} ({summary.wall_time_s:.1f} s)",
        f"- req2rank {run.plugin_version}",
    ]
    return "## Model\n\n" + "\n".join(lines)


def _judges(doc: ResultsDocument) -> str:
    """The panel, each LLM judge with the share of its answers that could not be read."""
    judging = doc.summary.judging
    rates = {r.judge: r.invalid_answer_rate for r in judging.per_judge} if judging else {}
    named = [_code(judge) + (f" ({_pct(rates[judge])} unreadable answers)"
                             if rates.get(judge) is not None and not judge.startswith(BUILTIN_PREFIX)
                             else "") for judge in doc.run.judges]
    return ", ".join(named) or "none"


def _score(summary: RunSummary) -> str:
    if summary.by_model is not None:
        return _model_scores(summary, summary.by_model)
    if summary.overall_score is None:
        text = "**n/a** (no item was scored: infrastructure errors, or every judge failed)"
    else:
        interval = ""
        if summary.ci95 is not None:
            interval = (f" (95% CI {summary.ci95.low:.1f}–{summary.ci95.high:.1f}, "
                        f"{summary.ci95.method})")
        meaning = score_meaning(summary.ci95).replace(" x ", " × ")
        text = f"**{summary.overall_score:.1f} / 100** = {meaning}{interval}"
    lines = ["## Score", "", text, "", f"Items: {_statuses(summary.status_counts) or 'none'}."]
    lines += _detectable(summary)
    if summary.dimensions:
        lines += ["", _table(["dimension", "score"],
                             [[d, f"{v:.1f}"] for d, v in summary.dimensions.items()])]
    return "\n".join(lines + _agreement_and_gates(summary))


def _model_scores(summary: RunSummary, by_model: Mapping[str, ModelSummary]) -> str:
    """A run of several models' scores: a row per model, each over its own items."""
    meaning = score_meaning(next((m.ci95 for m in by_model.values() if m.ci95), None))
    rows = [[_code(model), "n/a" if m.overall_score is None else f"{m.overall_score:.1f}",
             "n/a" if m.ci95 is None else f"{m.ci95.low:.1f}–{m.ci95.high:.1f}",
             "" if m.ci95 is None else m.ci95.method, f"{m.items_total}/{m.items_planned}",
             _statuses(m.status_counts) or "none"] for model, m in by_model.items()]
    lines = ["## Score", "", f"Each model over its own items; score = {meaning}.".replace(
        " x ", " × "), "", _table(["model", "score", "95% CI", "method", "items", "statuses"],
                                   rows)]
    lines += _detectable(summary)
    dimensions = list(dict.fromkeys(d for m in by_model.values() for d in m.dimensions))
    if dimensions:
        lines += ["", _table(["dimension", *(_code(model) for model in by_model)], [
            [d, *(f"{m.dimensions[d]:.1f}" if d in m.dimensions else "n/a"
                  for m in by_model.values())] for d in dimensions])]
    return "\n".join(lines + _agreement_and_gates(summary))


def _statuses(counts: Mapping[Status, int]) -> str:
    return ", ".join(f"{n} {status}" for status, n in counts.items() if n)


def _detectable(summary: RunSummary) -> list[str]:
    sentence = detectable_sentence(summary)
    return [] if sentence is None else ["", sentence]


def detectable_sentence(summary: RunSummary) -> str | None:
    """The smallest difference the run could detect, as a sentence of the reports."""
    found = summary.detectable_difference
    if found is None:
        return None
    against = (f"a model of this run's spread on the same {found.requirements} requirements"
               if found.basis == "like-model" else f"another of this run's models, paired on "
               f"the {found.requirements} requirements they share")
    return (f"Detectable difference: {found.points:.1f} points against {against} "
            f"({found.power:.0%} power, α {found.alpha:g}); a smaller true difference is "
            "likely to go undetected.")


def _agreement_and_gates(summary: RunSummary) -> list[str]:
    lines: list[str] = []
    if summary.agreement is not None and summary.judging is not None \
            and summary.judging.sigma is not None:
        lines += ["", f"Judge agreement: {summary.agreement} (mean σ "
                      f"{summary.judging.sigma:.1f})."]
    if summary.gates:
        lines += ["", _table(["gate", "verdict", "detail"], [
            [g.name, "✅ passed" if g.passed else "❌ FAILED", _text(g.message)]
            for g in summary.gates])]
    return lines


def _before_after(comparison: BaselineReport, doc: ResultsDocument,
                  before: ResultsDocument | None) -> str:
    rows = [[f"score ({comparison.n_pairs} paired requirements)",
             f"{comparison.baseline_score:.1f}", f"{comparison.candidate_score:.1f}",
             f"{comparison.diff:+.1f} (CI95 {comparison.diff_low:+.1f} to "
             f"{comparison.diff_high:+.1f})"]]
    if before is not None:
        # a baseline of several models: its answers of this run's model are the baseline
        ranked = before.summary.by_model
        own = ranked.get(doc.run.model) if ranked is not None else None
        earlier = before.summary.phase0 if ranked is None else own.phase0 if own else {}
        for dataset, metrics in doc.summary.phase0.items():
            old = earlier.get(dataset)
            if old is None:
                continue
            for name in ("accepted_at_1", "pass_ratio_mean", "exec_success_rate"):
                rows.append([f"{_text(dataset)} {name}", _ratio(old.get(name)),
                             _ratio(metrics.get(name)), _delta(old.get(name), metrics.get(name))])
    lines = [f"## Before / after (baseline run {_code(comparison.run_id)})", "",
             _table(["", "baseline", "this run", "difference"], rows), "",
             f"Paired by requirement; the difference's CI95 is a paired bootstrap; the gate "
             f"fails when it lies entirely below {-comparison.max_drop or 0:g}. Baseline: "
             f"{_code(comparison.path)}."]
    if comparison.worst:
        lines += ["", "Regressed most: " + ", ".join(
            f"{_code(r.requirement)} {r.baseline:.0f} → {r.candidate:.0f}"
            for r in comparison.worst) + "."]
    return "\n".join(lines)


def _ranking(ranking: RankingSection) -> str:
    """The models best first, with their intervals and the groups the data cannot separate."""
    level = f"{ranking.level:.0%}"
    how = "paired: every model on the same requirements" if ranking.paired else "unpaired"
    rows = [[str(row.rank), f"{row.rank_low}-{row.rank_high}", str(row.group), _code(row.model),
             f"{row.score:.1f}", f"{row.score_low:.1f}-{row.score_high:.1f}",
             "-" if i == 0 else f"{row.diff_to_leader:+.1f}",
             "" if i == 0 else f"{row.diff_low:+.1f} to {row.diff_high:+.1f}",
             str(row.requirements)] for i, row in enumerate(ranking.models)]
    lines = ["## Ranking", "", f"{len(ranking.models)} models ({how}; {level} intervals).", "",
             _table(["rank", f"{level} rank", "group", "model", "score", f"{level} CI",
                     "diff to #1", f"{level} CI", "requirements"], rows)]
    tied = [" = ".join(_code(model) for model in group) for group in ranking.groups
            if len(group) > 1]
    if tied:
        lines += ["", "The data cannot separate: " + "; ".join(tied) + "."]
    return "\n".join(lines)


Phase0 = Mapping[str, Any]


def _rows(summary: RunSummary) -> list[tuple[list[str], Phase0, PassAtK | None]]:
    """The rows of the Phase-0 tables: per dataset, and in a run of several models per model
    of it; each with its first cells (dataset, model), its metrics and its pass@k."""
    if summary.by_model is None:
        return [([_text(dataset)], m, summary.pass_at_k.get(dataset))
                for dataset, m in summary.phase0.items()]
    return [([_text(dataset), _code(model)], own.phase0[dataset], own.pass_at_k.get(dataset))
            for dataset in summary.phase0 for model, own in summary.by_model.items()
            if dataset in own.phase0]


def _first(summary: RunSummary) -> list[str]:
    return ["Dataset"] if summary.by_model is None else ["Dataset", "Model"]


def _quality(summary: RunSummary) -> str:
    rows = _rows(summary)
    extra = sorted({k for _, _, p in rows if p and p.max_samples > 1 for k in p.values
                    if k != "pass@1"}, key=lambda k: int(k.removeprefix("pass@")))
    cells = [[*first, _pct(m.get("accepted_at_1")), _ratio(m.get("pass_ratio_mean")),
              _ratio(m.get("pass_ratio_p50")), _ratio(m.get("pass_ratio_p90")),
              _pct(m.get("exec_success_rate"))]
             + [_pct(passes.values.get(k)) if passes else "n/a" for k in extra]
             for first, m, passes in rows]
    headers = [*_first(summary), "accepted@1", "pass_ratio_mean", "pass_ratio_p50",
               "pass_ratio_p90", "exec_success", *extra]
    return "## Quality\n\n" + _table(headers, cells)


def _errors(summary: RunSummary) -> str:
    names = ERROR_DISTRIBUTION_STATUSES
    cells = [[*first, *(_pct(m.get(f"{name}_rate")) for name in names),
              _pct(m.get("api_error_rate")), _pct(m.get("sandbox_error_rate"))]
             for first, m, _ in _rows(summary)]
    headers = [*_first(summary), "syntax", "runtime", "timeout", "truncated", "wrong_answer",
               "success", "api_error", "sandbox_error"]
    return ("## Error distribution\n\n" + _table(headers, cells) + "\n\nsyntax … success: "
            "shares of the problems the model is accountable for; api_error and sandbox_error "
            "(infrastructure, left out of the score): shares of all problems.")


def _cost(summary: RunSummary) -> str:
    cells = [[*first, _num(m.get("avg_total_gen_tokens")),
              _secs(m.get("avg_total_judge_time")), _secs(m.get("p95_total_judge_time")),
              f"{_num(m.get('throughput'), 2)}/s", _num(m.get("cost_per_solved_tokens")),
              _secs(m.get("cost_per_solved_judge_time"))]
             for first, m, _ in _rows(summary)]
    headers = [*_first(summary), "avg_tokens", "avg_judge_time", "p95_judge_time", "throughput",
               "cost/solved_tokens", "cost/solved_time"]
    return ("## Cost\n\n" + _table(headers, cells) + "\n\nJudge time is the sandbox time spent "
            "grading; cost per solved problem divides the cost of all problems by those solved.")


def _nversion(nv: NVersionSummary) -> str:
    rows = [[p.pattern, f"{p.fr:.3f}", f"{p.mcr:.3f}", f"{p.ccr:.3f}", f"{p.tpr:.3f}",
             f"{p.afvr:.3f}", str(p.tasks), str(p.no_consensus), str(p.faults), str(p.missing)]
            for p in nv.patterns]
    headers = ["pattern", "FR", "MCR", "CCR", "TPR", "AFVR", "tasks", "no consensus", "faults",
               "missing"]
    similarity = ("n/a" if nv.mean_levenshtein is None else f"{nv.mean_levenshtein:.3f}",
                  "n/a" if nv.mean_structural is None else f"{nv.mean_structural:.3f}")
    return (f"## N-version\n\n{nv.versions} versions × {nv.tasks} tasks; versions passing "
            f"their tests: {nv.versions_passed}/{nv.version_items}.\n\n" + _table(headers, rows)
            + f"\n\nMean pairwise similarity (lower = more diverse): LS {similarity[0]}, "
            f"structural ({nv.structural_measure}) {similarity[1]}.")


def _usage(summary: RunSummary) -> str:
    roles: list[tuple[str, Totals]] = [("all", summary.totals)]
    for name, totals in summary.totals_by_role.items():
        if not totals.calls:
            continue
        if name == "target" and summary.by_model is not None:  # each model's own calls
            roles += [(f"target {_code(model)}", m.totals_by_role["target"])
                      for model, m in summary.by_model.items() if "target" in m.totals_by_role]
        else:
            roles.append((name, totals))
    rows = [[name, str(t.calls), _int(t.prompt_tokens), _int(t.completion_tokens),
             "unknown" if t.cost_usd is None else f"${t.cost_usd:.4f}"] for name, t in roles]
    return "## Model calls\n\n" + _table(
        ["role", "calls", "prompt tokens", "completion tokens", "cost"], rows)


def _samples(doc: ResultsDocument, samples: QaSamples) -> str:
    by_id = {item.item_id: item for item in doc.items}
    directory = doc.run.settings.get("dir")
    where = (_code(str(Path(directory) / "runs" / doc.run.id / SAMPLES_FILE)) if directory
             else f"{_code(SAMPLES_FILE)} beside the run's Q&A log")
    lines = [f"## Q&A samples\n\n{samples.per_dataset} per dataset, stratified by final status "
             f"(seed {samples.seed}); their Q&A log records are in {where}."]
    for dataset, sample in samples.datasets.items():
        split = ", ".join(f"{status} {n}/{sample.available[status]}"
                          for status, n in sample.drawn.items())
        rows = []
        for item_id in sample.item_ids:
            item = by_id.get(item_id)
            if item is not None:
                rows.append([_code(item_id), item.status, f"{item.pass_ratio:.2f}",
                             "n/a" if item.score is None else f"{item.score:.1f}",
                             _text(item.reason or "")])
        lines.append(f"### {_text(dataset)}\n\nDrawn of each status: {split}.\n\n"
                     + _table(["item", "status", "pass ratio", "score", "reason"], rows))
    return "\n\n".join(lines)


def _table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(_cell(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _text(text: str) -> str:
    """Plain text in Markdown: characters that would start markup are escaped."""
    for char in "\\`*[]<":
        text = text.replace(char, "\\" + char)
    return text


def _code(text: str) -> str:
    return f"`{text.replace('`', '')}`"


def _delta(old: Any, new: Any) -> str:
    if isinstance(old, float | int) and isinstance(new, float | int):
        return f"{new - old:+.3f}"
    return "n/a"


def _int(value: int | None) -> str:
    return "unknown" if value is None else str(value)
