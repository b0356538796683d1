"""What the HTML report shows, computed from the results document alone: the sections that
have data (the others are left out), the per-dataset table, the plots' inputs, and each
item's row and details."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from statistics import fmean
from typing import Any

from ..models import STATUSES, ItemResult
from ..scoring import bootstrap_ci
from . import _html_plots as plots
from ._comparison import answered_by
from ._document import (
    JudgingSummary,
    ModelSummary,
    PassAtK,
    RankingSection,
    ResultsDocument,
    RunSummary,
    ScoreInterval,
    Totals,
)
from ._markdown import detectable_sentence
from ._run import item_counts

CLIP = 20_000
"""Characters of one text (a code file, the prompt) the report embeds; the rest is in the
results JSON."""
CLIP_SHORT = 2_000
"""Characters of a test's input, expected and actual output, and of a judge's raw answer."""
MAX_TESTS = 200
"""Test outcomes listed per item (the first failed one is always among them)."""
COMPLEXITY_ORDER = ("C1", "C2", "C3", "C4")


def clip(text: str | None, limit: int = CLIP) -> str | None:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if text is None or len(text) <= limit:
        return text
    return text[:limit] + f"\n… ({len(text) - limit} more characters in the results JSON)"


def skills_of(item: ItemResult) -> list[str]:
    """The skills a dynamic item's requirement exercises (none for static items)."""
    metadata = (item.requirement or {}).get("metadata") or {}
    skills = metadata.get("skills") if isinstance(metadata, dict) else None
    return [str(s) for s in skills] if isinstance(skills, list) else []


def build_view(document: ResultsDocument) -> dict[str, Any]:
    """The template's context: every key a section; ``None`` or empty leaves it out. A run of
    several models shows each model's figures (``summary.by_model``), never the pooled ones."""
    run, summary, items = document.run, document.summary, document.items
    scored = [i for i in items if i.nversion is None or i.nversion.role == "version"]
    by_model = summary.by_model
    groups = _groups(summary, scored)
    return {
        "run": run,
        "summary": summary,
        "headline": _headline(summary),
        "models": _model_rows(by_model) if by_model is not None else None,
        "ranking": _ranking(summary.ranking),
        "item_counts": item_counts(summary),
        "statuses": [(s, n) for s, n in summary.status_counts.items() if n]
        if by_model is None else [],
        "datasets": _dataset_rows(summary),
        "dimensions": _dimensions(summary, groups, run.seed),
        "heatmaps": [(model, svg) for model, own in groups.items()
                     if (svg := _heatmap(own)) is not None],
        "status_plot": _status_plot(summary, groups),
        "pass_ratio": _pass_ratio(summary, groups),
        "judging": _judging(summary, groups),
        "usage": _usage(summary, groups),
        "nversion": _nversion(summary),
        "items": [_row(index, item) for index, item in enumerate(items)],
        "details": [_details(item) for item in items],
        "filters": _filters(items),
    }


def _groups(summary: RunSummary, scored: list[ItemResult]) -> dict[str | None, list[ItemResult]]:
    """The scored items of each model (a run of several models, in its order), or all of them
    under ``None`` (a run of one model)."""
    if summary.by_model is None:
        return {None: scored}
    return {model: answered_by(scored, model) for model in summary.by_model}


def _label(dataset: str, model: str | None, datasets: int) -> str:
    """A plot's row: the dataset, in a run of several models its model (alone when the run
    has one dataset)."""
    if model is None:
        return dataset
    return model if datasets == 1 else f"{dataset} · {model}"


def _model_rows(by_model: Mapping[str, ModelSummary]) -> list[dict[str, str]]:
    """A run of several models' score card: a row per model, over its own items."""
    return [{
        "model": model,
        "score": "n/a" if m.overall_score is None else f"{m.overall_score:.1f}",
        "ci": "n/a" if m.ci95 is None else f"{m.ci95.low:.1f}–{m.ci95.high:.1f}",
        "method": "" if m.ci95 is None else m.ci95.method,
        "finished": f"{m.items_total}/{m.items_planned}",
        "statuses": ", ".join(f"{status} {n}" for status, n in m.status_counts.items() if n)
        or "none",
        "agreement": m.agreement or "",
    } for model, m in by_model.items()]


def _headline(summary: RunSummary) -> dict[str, Any]:
    ci = summary.ci95
    detectable = detectable_sentence(summary)
    if summary.by_model is not None:
        found = next((m.ci95 for m in summary.by_model.values() if m.ci95), None)
        return {"score": None, "title": f"{len(summary.by_model)} models",
                "meaning": _meaning(found), "detectable": detectable}
    if summary.overall_score is None:
        return {"score": None, "title": "n/a", "meaning": "no item was scored (infrastructure "
                "errors, or every judge failed)", "detectable": detectable}
    return {"score": f"{summary.overall_score:.1f}", "title": f"{summary.overall_score:.1f}",
            "meaning": _meaning(ci),
            "ci": f"{ci.low:.1f}–{ci.high:.1f}" if ci else None,
            "method": ci.method if ci else None, "detectable": detectable}


def _meaning(ci: ScoreInterval | None) -> str:
    return "100 × accepted@1" if ci is None or ci.method == "wilson" else "mean item score"


def _ranking(ranking: RankingSection | None) -> dict[str, Any] | None:
    """A run of several models: the ranking table's rows formatted, best first, the groups
    the data cannot separate, and the rank-interval plot."""
    if ranking is None:
        return None
    leader = ranking.models[0]
    rows = [{
        "rank": str(row.rank), "interval": f"{row.rank_low}–{row.rank_high}",
        "group": str(row.group), "model": row.model, "score": f"{row.score:.1f}",
        "ci": f"{row.score_low:.1f}–{row.score_high:.1f}",
        "diff": "–" if row is leader else f"{row.diff_to_leader:+.1f}",
        "diff_ci": "" if row is leader else f"{row.diff_low:+.1f} to {row.diff_high:+.1f}",
        "requirements": str(row.requirements),
    } for row in ranking.models]
    return {
        "level": f"{ranking.level:.0%}",
        "how": ("paired: every model answered the same requirements, and each resample draws "
                "the same ones for every model" if ranking.paired else
                "unpaired: each model's requirements are resampled on their own"),
        "n_resamples": ranking.n_resamples,
        "rows": rows,
        "tied": [group for group in ranking.groups if len(group) > 1],
        "svg": plots.ranking_plot([
            (row.model, row.score, row.score_low, row.score_high, row.rank, row.rank_low,
             row.rank_high, row.group) for row in ranking.models]),
    }


def _pct(value: Any) -> str:
    return f"{100 * value:.1f}%" if isinstance(value, int | float) else "n/a"


def _num(value: Any, digits: int = 3) -> str:
    if value == "inf":
        return "inf"
    return f"{value:.{digits}f}" if isinstance(value, int | float) else "n/a"


def _secs(value: Any) -> str:
    if value == "inf":
        return "inf"
    if not isinstance(value, int | float):
        return "n/a"
    return f"{1000 * value:.0f} ms" if value < 1 else f"{value:.2f} s"


def _dataset_rows(summary: RunSummary) -> list[dict[str, str]]:
    """The Phase-0 metrics of each dataset, formatted, pass@k included; in a run of several
    models a row per dataset and model, from each model's own summary."""
    if summary.by_model is None:
        return [_dataset_row(dataset, None, m, summary.pass_at_k.get(dataset))
                for dataset, m in summary.phase0.items()]
    return [_dataset_row(dataset, model, own.phase0[dataset], own.pass_at_k.get(dataset))
            for dataset in summary.phase0 for model, own in summary.by_model.items()
            if dataset in own.phase0]


def _dataset_row(dataset: str, model: str | None, m: Mapping[str, Any],
                 passes: PassAtK | None) -> dict[str, str]:
    first = {"dataset": dataset} if model is None else {"dataset": dataset, "model": model}
    return {
        **first,
        "accepted@1": _pct(m.get("accepted_at_1")),
        "pass@k": ", ".join(f"{k} {_pct(v)}" for k, v in passes.values.items())
        if passes else "n/a",
        "pass ratio mean/p50/p90": "/".join(
            _num(m.get(k), 2) for k in ("pass_ratio_mean", "pass_ratio_p50", "pass_ratio_p90")),
        "exec success": _pct(m.get("exec_success_rate")),
        "syntax/runtime/timeout/truncated/wrong": " / ".join(
            _pct(m.get(f"{s}_rate")) for s in ("syntax_error", "runtime_error", "timeout",
                                               "truncated", "wrong_answer")),
        "avg gen tokens": _num(m.get("avg_total_gen_tokens"), 1),
        "sandbox time avg/p95": f"{_secs(m.get('avg_total_judge_time'))} / "
                                f"{_secs(m.get('p95_total_judge_time'))}",
        "throughput": f"{_num(m.get('throughput'), 2)}/s",
        "api/sandbox errors": f"{_pct(m.get('api_error_rate'))} / "
                              f"{_pct(m.get('sandbox_error_rate'))}",
    }


Interval = tuple[str, float, float | None, float | None]


def _dimensions(summary: RunSummary, groups: Mapping[str | None, list[ItemResult]],
                seed: int) -> dict[str, Any] | None:
    """Each dimension's mean with a bootstrap 95 % interval over requirements (clusters); in a
    run of several models each model's, over its own items, in one grouped plot and a table
    with a column per model."""
    if summary.by_model is None:
        if not summary.dimensions:
            return None
        rows = _dimension_rows(summary.dimensions, groups[None], seed)
        return {"rows": rows, "svg": plots.dimensions_plot(rows), "table": None}
    by_model = {model: _dimension_rows(own.dimensions, groups[model], seed)
                for model, own in summary.by_model.items() if own.dimensions}
    if not by_model:
        return None
    names = list(dict.fromkeys(row[0] for rows in by_model.values() for row in rows))
    means = {model: {row[0]: row for row in rows} for model, rows in by_model.items()}
    table = {"models": list(by_model), "rows": [
        [name, *(_interval(means[model].get(name)) for model in by_model)] for name in names]}
    return {"rows": None, "svg": plots.model_dimensions_plot(by_model), "table": table}


def _dimension_rows(dimensions: Mapping[str, float], items: list[ItemResult],
                    seed: int) -> list[Interval]:
    rows: list[Interval] = []
    for name, mean in dimensions.items():
        clusters: dict[str, list[float]] = {}
        for item in items:
            if item.panel is not None and name in item.panel.dimensions:
                clusters.setdefault(item.cluster or item.item_id, []).append(
                    item.panel.dimensions[name])
        if clusters:
            interval = bootstrap_ci(clusters, seed=seed)
            rows.append((name, mean, round(interval.low, 1), round(interval.high, 1)))
        else:
            rows.append((name, mean, None, None))
    return rows


def _interval(row: Interval | None) -> str:
    if row is None:
        return "n/a"
    _, mean, low, high = row
    return f"{mean:.1f}" if low is None or high is None else f"{mean:.1f} ({low:.1f}–{high:.1f})"


def _heatmap(items: list[ItemResult]) -> str | None:
    """Mean score per skill and complexity over the dynamic items that were scored."""
    cells: dict[tuple[str, str], list[float]] = {}
    for item in items:
        if item.score is None or not item.complexity:
            continue
        for skill in skills_of(item):
            cells.setdefault((skill, item.complexity), []).append(item.score)
    if not cells:
        return None
    skills = sorted({skill for skill, _ in cells})
    found = {complexity for _, complexity in cells}
    complexities = [c for c in COMPLEXITY_ORDER if c in found] + sorted(
        found - set(COMPLEXITY_ORDER))
    return plots.heatmap_plot(skills, complexities,
                              {key: (fmean(v), len(v)) for key, v in cells.items()})


def _status_plot(summary: RunSummary, groups: Mapping[str | None, list[ItemResult]]
                 ) -> str | None:
    """Items per status: a bar per dataset, in a run of several models per dataset and model."""
    datasets = {item.dataset for items in groups.values() for item in items}
    counts: dict[str, Counter[str]] = {}
    for dataset in sorted(datasets) if summary.by_model is not None else [None]:
        for model, items in groups.items():
            for item in items:
                if dataset is None or item.dataset == dataset:
                    label = _label(item.dataset, model, len(datasets))
                    counts.setdefault(label, Counter())[item.status] += 1
    return plots.status_plot({label: dict(c) for label, c in counts.items()}) if counts else None


def _pass_ratio(summary: RunSummary, groups: Mapping[str | None, list[ItemResult]]
                ) -> str | None:
    """The pass ratio's histogram: stacked by dataset, in a run of several models a bar per
    model (and dataset) side by side."""
    datasets = {item.dataset for items in groups.values() for item in items}
    ratios: dict[str, list[float]] = {}
    for model, items in groups.items():
        for item in items:
            if item.tests_total:
                ratios.setdefault(_label(item.dataset, model, len(datasets)), []).append(
                    item.pass_ratio)
    if not ratios:
        return None
    return plots.pass_ratio_plot(ratios, stacked=summary.by_model is None)


def _judging(summary: RunSummary, groups: Mapping[str | None, list[ItemResult]]
             ) -> dict[str, Any] | None:
    """The panel's record; in a run of several models the panel over each model's answers (a
    row per model and judge) and each judge's scores per model in the plot."""
    judging = summary.judging
    if judging is None:
        return None
    panels: dict[str | None, JudgingSummary] = {None: judging} if summary.by_model is None else {
        model: own.judging for model, own in summary.by_model.items() if own.judging}
    scores: dict[str, list[float]] = {}
    for model, panel in panels.items():
        for judge in panel.judges:
            scores.setdefault(_judge_label(judge, model), [])
        for item in groups.get(model, []):
            for verdict in item.judges:
                if verdict.overall is not None:
                    scores.setdefault(_judge_label(verdict.judge, model), []).append(
                        verdict.overall)
    return {
        "summary": judging,
        "agreement": summary.agreement,
        "models": None if summary.by_model is None else [
            _panel_row(model, panel, summary.by_model[model].agreement)
            for model, panel in panels.items() if model is not None],
        "per_judge": [(model, report) for model, panel in panels.items()
                      for report in panel.per_judge],
        "svg": plots.judges_plot(scores) if any(scores.values()) else None,
    }


def _panel_row(model: str, panel: JudgingSummary, agreement: str | None) -> dict[str, str]:
    """The panel over one model's answers, formatted; ``alpha`` empty when no dimension has
    one (a single judge)."""
    alpha = panel.alpha if any(a is not None for a in panel.alpha.values()) else {}
    return {
        "model": model, "scored": str(panel.items_judged), "failed": str(panel.judge_failed),
        "sigma": "n/a" if panel.sigma is None else f"{panel.sigma:.1f}",
        "agreement": agreement or "n/a",
        "bands": ", ".join(f"{band} {n}" for band, n in panel.agreement_counts.items()),
        "alpha": " · ".join(f"{d} {'n/a' if a is None else f'{a:.2f}'}"
                            for d, a in alpha.items()),
    }


def _judge_label(judge: str, model: str | None) -> str:
    return judge if model is None else f"{judge} · {model}"


def _usage(summary: RunSummary, groups: Mapping[str | None, list[ItemResult]]
           ) -> dict[str, Any] | None:
    """Time per item by phase (per model in a run of several), calls, tokens and cost by role
    (the target's per model) and, in a run of several models, each model's totals."""
    items = [item for own in groups.values() for item in own]
    if not items:
        return None
    series: dict[str, list[float]] = {}
    for model, own in groups.items():
        for phase, values in (
                ("generation", [i.timings.generation_s for i in own]),
                ("sandbox", [i.judge_time_s for i in own]),
                ("judges", [sum(v.latency_s for v in i.judges) for i in own if i.judges]),
                ("item total", [i.timings.total_s for i in own])):
            series[phase if model is None else f"{phase} · {model}"] = values
    by_model = summary.by_model
    roles: list[tuple[str, Totals]] = []
    for name, totals in summary.totals_by_role.items():
        if not totals.calls:
            continue
        if name == "target" and by_model is not None:
            roles += [(f"target {model}", own.totals_by_role["target"])
                      for model, own in by_model.items() if "target" in own.totals_by_role]
        else:
            roles.append((name, totals))
    tokens = [i.usage.completion_tokens for i in items if i.usage.completion_tokens is not None]
    return {
        "totals": summary.totals,
        "roles": roles,
        "models": None if by_model is None else [
            (model, own.totals, _mean_tokens(groups[model])) for model, own in by_model.items()],
        "wall_time_s": summary.wall_time_s,
        "mean_completion_tokens": fmean(tokens) if tokens else None,
        "svg": plots.latency_plot(series) if any(any(v) for v in series.values()) else None,
    }


def _mean_tokens(items: list[ItemResult]) -> str:
    tokens = [i.usage.completion_tokens for i in items if i.usage.completion_tokens is not None]
    return f"{fmean(tokens):.1f}" if tokens else "unknown"


def _nversion(summary: RunSummary) -> dict[str, Any] | None:
    nv = summary.nversion
    if nv is None:
        return None
    rows = [(p.pattern, p.fr, p.mcr, p.ccr) for p in nv.patterns]
    return {"summary": nv, "svg": plots.patterns_plot(rows) if rows else None}


def _filters(items: list[ItemResult]) -> dict[str, list[str]]:
    present = {item.status for item in items}
    return {
        "statuses": [s for s in STATUSES if s in present],
        "datasets": sorted({item.dataset for item in items}),
        "skills": sorted({skill for item in items for skill in skills_of(item)}),
    }


def _row(index: int, item: ItemResult) -> dict[str, Any]:
    return {
        "index": index,
        "id": item.item_id,
        "dataset": item.dataset,
        "status": item.status,
        "score": "" if item.score is None else f"{item.score:.1f}",
        "tests": f"{item.tests_passed}/{item.tests_total}" if item.tests_total else "",
        "complexity": item.complexity or "",
        "skills": skills_of(item),
        "time": _secs(item.timings.total_s),
        "seconds": round(item.timings.total_s, 4),
    }


def _details(item: ItemResult) -> dict[str, Any]:
    """One item's details as the report's script shows them (JSON, inserted as text only)."""
    tests = item.tests
    failed = next((i for i, t in enumerate(tests) if t.status != "success"), None)
    shown = tests[:MAX_TESTS]
    if failed is not None and failed >= MAX_TESTS:
        shown = [*shown, tests[failed]]
    requirement = item.requirement
    details: dict[str, Any] = {
        "id": item.item_id, "dataset": item.dataset, "task": item.task_id,
        "status": item.status, "reason": item.reason, "score": item.score,
        "pass_ratio": item.pass_ratio, "tests_passed": item.tests_passed,
        "tests_total": item.tests_total, "complexity": item.complexity,
        "skills": skills_of(item), "sample": item.sample,
        "requirement": _requirement(requirement) if requirement else None,
        "prompt": None if requirement else clip(item.prompt),
        "code": {name: clip(text) for name, text in item.code.items()},
        "response": None if item.code else clip(item.response),
        "tests": [{"name": t.name, "status": t.status, "detail": clip(t.detail, CLIP_SHORT)}
                  for t in shown],
        "tests_left_out": len(tests) - len(shown),
        "first_failed": _test(tests[failed]) if failed is not None else None,
        "judges": [{"judge": v.judge, "overall": v.overall, "scores": v.scores,
                    "rationale": clip(v.rationale, CLIP_SHORT), "error": v.error,
                    "raw": clip(v.raw, CLIP_SHORT) if v.error else None,
                    "latency_s": round(v.latency_s, 3), "self_judging": v.self_judging}
                   for v in item.judges],
        "panel": None if item.panel is None else {
            "status": item.panel.status, "overall": item.panel.overall,
            "ci95": item.panel.ci95, "agreement": item.panel.agreement,
            "dimensions": item.panel.dimensions, "warnings": item.panel.warnings},
        "usage": item.usage.model_dump(mode="json"),
        "timings": item.timings.model_dump(mode="json"),
        "nversion": _nversion_details(item),
    }
    return details


def _requirement(requirement: dict[str, Any]) -> dict[str, Any]:
    items = requirement.get("requirements")
    return {
        "title": str(requirement.get("title", "")),
        "description": clip(str(requirement.get("description", ""))),
        "requirements": [
            {"id": str(r.get("id", "")), "priority": str(r.get("priority", "")),
             "text": clip(str(r.get("text", "")), CLIP_SHORT),
             "acceptance": clip(str(r.get("acceptance", "")), CLIP_SHORT)}
            for r in items if isinstance(r, dict)] if isinstance(items, list) else [],
        "constraints": [clip(str(c), CLIP_SHORT) for c in requirement.get("constraints") or []],
    }


def _test(test: Any) -> dict[str, Any]:
    return {"name": test.name, "status": test.status, "detail": clip(test.detail, CLIP_SHORT),
            "input": clip(test.input, CLIP_SHORT), "expected": clip(test.expected, CLIP_SHORT),
            "actual": clip(test.actual, CLIP_SHORT)}


def _nversion_details(item: ItemResult) -> dict[str, Any] | None:
    record = item.nversion
    if record is None:
        return None
    injection = (record.run or {}).get("injection") or {}
    return {
        "role": record.role, "task": record.task, "versions": record.versions,
        "version": record.version, "implementation": record.implementation,
        "pattern": record.pattern, "inputs": record.inputs,
        "faults": [clip(str(f.get("description", f.get("name", ""))), CLIP_SHORT)
                   for f in injection.get("faults") or [] if isinstance(f, dict)],
        "missing": [clip(str(m), CLIP_SHORT) for m in injection.get("missing") or []],
        "diversity": record.diversity,
    }
