"""The terminal summary: one table per dataset, warnings, totals and where the outputs went."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from ..models import BUILTIN_PREFIX, Status
from ..scoring import ERROR_DISTRIBUTION_STATUSES
from ._columns import aligned
from ._document import (
    BaselineReport,
    DetectableDifference,
    JudgingSummary,
    ModelSummary,
    PassAtK,
    ResultsDocument,
    ResumedRun,
    RunInfo,
    RunSummary,
    ScoreInterval,
    Totals,
)
from ._nversion import GenerationSummary, NVersionSummary
from ._ranking import ranking_lines, section_ranking
from ._run import item_counts

Value = float | str | None


class OutputLocations(Protocol):
    results: Path
    qa_log: Path
    store: Path


def render_summary(
    document: ResultsDocument, paths: OutputLocations,
    output_errors: Mapping[str, str] | None = None,
) -> list[str]:
    """The lines printed after the run (without the section separator). ``output_errors``
    says which outputs (``results``, ``qa log``, ``store``) could not be written, and why."""
    run, summary = document.run, document.summary
    lines = [f"run {run.id} | model {run.model} | suite {run.suite} | seed {run.seed}"
             f" | sandbox isolation {run.isolation or 'unknown'}"]
    if summary.by_model is not None:
        lines += model_score_lines(summary.by_model)
    elif summary.overall_score is None:
        lines.append("score: n/a (no item was scored: infrastructure errors, or every judge failed)")
    else:
        interval = ""
        if summary.ci95 is not None:
            interval = f" (95% CI {summary.ci95.low:.1f}-{summary.ci95.high:.1f}, {summary.ci95.method})"
        lines.append(f"score: {summary.overall_score:.1f}/100 = {score_meaning(summary.ci95)}"
                     f"{interval}")
    if summary.detectable_difference is not None:
        lines.append(detectable_line(summary.detectable_difference))
    lines.append(_items_line(summary))
    if summary.ranking is not None:
        kind = "paired over the same requirements" if summary.ranking.paired else "unpaired"
        heading = f"ranking of {len(summary.ranking.models)} models ({kind}):"
        lines += ["", heading, *ranking_lines(section_ranking(summary.ranking))]
    if summary.judging is not None:
        lines += ["", *_judging_lines(summary, summary.judging)]
    if summary.by_model is not None:
        for dataset in summary.phase0:
            lines += ["", *_models_table(dataset, summary.by_model)]
    for dataset, metrics in summary.phase0.items() if summary.by_model is None else ():
        # An N-version run's versions of a task are no samples of one answer: no pass@k.
        passes = summary.pass_at_k.get(dataset) if summary.nversion is None else None
        lines += ["", *_dataset_table(dataset, metrics, passes)]
    if summary.nversion is not None:
        lines += ["", *nversion_lines(summary.nversion)]
    lines += ["", *_usage_lines(summary, document.run)]
    if summary.resumed is not None:
        lines.append(_resumed_line(summary.resumed))
    lines += [f"warning: {warning}" for warning in summary.warnings]
    if summary.baseline is not None:
        lines += baseline_lines(summary.baseline)
    for gate in summary.gates:
        lines.append(f"gate {gate.name}: {'PASSED' if gate.passed else 'FAILED'} ({gate.message})")
    errors = output_errors or {}
    if "results" not in errors:
        lines.append(f"results: {paths.results}")
    html = getattr(paths, "html", None)  # where the run's HTML report went, when it wrote one
    if html is not None and "html" not in errors:
        lines.append(f"html report: {html}")
    lines.append(f"q&a log: {paths.qa_log} | store: {paths.store}")
    lines += [f"error: {message}" for message in errors.values()]
    return lines


def score_meaning(ci95: ScoreInterval | None) -> str:
    """What a score is: 100 x accepted@1 (pass/fail items, a Wilson interval), else the mean
    item score."""
    return "100 x accepted@1" if ci95 is None or ci95.method == "wilson" else "mean item score"


def model_score_lines(by_model: Mapping[str, ModelSummary]) -> list[str]:
    """A run of several models' scores: one row per model, each over its own items."""
    meaning = score_meaning(next((m.ci95 for m in by_model.values() if m.ci95), None))
    table = [["model", "score", "95% CI", "method", "items", "statuses"]]
    for model, m in by_model.items():
        table.append([model, "n/a" if m.overall_score is None else f"{m.overall_score:.1f}",
                      "n/a" if m.ci95 is None else f"{m.ci95.low:.1f}-{m.ci95.high:.1f}",
                      "" if m.ci95 is None else m.ci95.method,
                      f"{m.items_total}/{m.items_planned}", _statuses(m.status_counts) or "none"])
    return [f"score by model ({meaning}, each model over its own items):",
            *("  " + line for line in aligned(table, left={0, 3, 5}))]


def _statuses(counts: Mapping[Status, int]) -> str:
    return ", ".join(f"{n} {status}" for status, n in counts.items() if n)


def detectable_line(found: DetectableDifference) -> str:
    """What difference the run could detect, and against what."""
    against = ("a model of this run's spread on the same requirements" if found.basis ==
               "like-model" else "another of this run's models, paired on the requirements they share")
    return (f"detectable difference: {found.points:.1f} points vs {against} "
            f"({found.requirements} requirements, {found.power:.0%} power, alpha "
            f"{found.alpha:g}; `req2rank plan --difference D` says the rounds D needs)")


def _items_line(summary: RunSummary) -> str:
    """The items finished and planned, by status; an N-version run's split into versions (the
    scored items) and ensemble checks (measurements), which add up to the header's items."""
    counts = _statuses(summary.status_counts)
    nv = summary.nversion
    if summary.by_model is not None:
        return (f"items: {summary.items_total}/{summary.items_planned} finished, "
                f"{len(summary.by_model)} models together ({counts or 'none'}) in "
                f"{summary.wall_time_s:.1f} s")
    if nv is None or not nv.ensemble_planned:
        return (f"items: {summary.items_total}/{summary.items_planned} finished "
                f"({counts or 'none'}) in {summary.wall_time_s:.1f} s")
    finished, planned = item_counts(summary)
    lost = f", {nv.left_out} lost to infrastructure" if nv.left_out else ""
    return (f"items: {finished}/{planned} finished in {summary.wall_time_s:.1f} s: "
            f"{summary.items_total}/{summary.items_planned} versions ({counts or 'none'}), "
            f"{nv.ensemble_items}/{nv.ensemble_planned} ensemble checks "
            f"({nv.ensemble_items - nv.left_out} measured{lost})")


def nversion_lines(nv: NVersionSummary) -> list[str]:
    """The N-version tables: one row per fault pattern, then the versions' diversity."""
    lines = [f"N-version: {nv.versions} versions x {nv.tasks} tasks | versions passing their "
             f"tests {nv.versions_passed}/{nv.version_items}"
             + (f" | {nv.left_out} ensemble checks lost to infrastructure, not counted"
                if nv.left_out else ""),
             f"  {'pattern':<9} {'FR':>6} {'MCR':>6} {'CCR':>6} {'TPR':>6} {'AFVR':>6} "
             f"{'tasks':>5} {'no-cons':>7} {'faults':>6} {'missing':>7}"]
    for p in nv.patterns:
        lines.append(f"  {p.pattern:<9} {p.fr:>6.3f} {p.mcr:>6.3f} {p.ccr:>6.3f} {p.tpr:>6.3f} "
                     f"{p.afvr:>6.3f} {p.tasks:>5} {p.no_consensus:>7} {p.faults:>6} "
                     f"{p.missing:>7}")
    lines.append(f"  diversity, mean over tasks (similarities: lower = more diverse; SDP: higher "
                 f"= more diverse): LS {_similarity(nv.mean_levenshtein)} | structural "
                 f"({nv.structural_measure}, not MBCS) {_similarity(nv.mean_structural)}")
    lines.append(f"    SDP {_sdp_summary(nv)}")
    lines.append(f"    MBCS {_mbcs_summary(nv)}")
    width = max((len(d.task) for d in nv.diversity), default=0)
    for d in nv.diversity:
        sdp = "n/a" if d.sdp is None or d.sdp.sdp is None else f"{d.sdp.sdp:.3f}"
        judged = "" if d.sdp is None or d.sdp.status == "not_measured" else (
            f" ({d.sdp.judged}/{d.sdp.pairs} judged)")
        mbcs = ("n/a" if d.mbcs is None or d.mbcs.status == "not_measured" else
                "error" if d.mbcs.mbcs is None else f"{d.mbcs.mbcs:.3f}")
        lines.append(f"    {d.task:<{width}} LS {_similarity(d.levenshtein)}  structural "
                     f"{_similarity(d.structural)}  SDP {sdp}{judged}  MBCS {mbcs}")
    if nv.generation is not None:
        lines += generation_lines(nv.generation)
    return lines


def _sdp_summary(nv: NVersionSummary) -> str:
    if nv.sdp_judge is None:
        return f"not measured ({nv.sdp_note or 'not recorded in these results'})"
    failures = ""
    if nv.sdp_parse_failures or nv.sdp_call_failures:
        failures = (f", {nv.sdp_parse_failures} unreadable answers, {nv.sdp_call_failures} "
                    f"failed calls, left out; first: {nv.sdp_note}")
    return (f"{_similarity(nv.mean_sdp)} by {nv.sdp_judge} ({nv.sdp_judged}/{nv.sdp_pairs} "
            f"pairs judged{failures})")


def _mbcs_summary(nv: NVersionSummary) -> str:
    if nv.embedding_model is None:
        return f"not measured ({nv.mbcs_note or 'not recorded in these results'})"
    failed = (f"; {nv.mbcs_failed} tasks without it, error: {nv.mbcs_note}" if nv.mbcs_failed
              else "")
    return f"{_similarity(nv.mean_mbcs)} by {nv.embedding_model}{failed}"


def generation_lines(g: GenerationSummary) -> list[str]:
    """The generation pipeline's statistics: the state machine, IRQN, repair, cost."""
    irqn = ", ".join(f"{name} {count}" for name, count in g.irqn.items())
    per_token = None if g.tokens_per_accepted is None else round(g.tokens_per_accepted)
    per_version = f"tokens {_int(per_token)} | cost {_usd(g.cost_per_accepted)}"
    return [
        f"  generation pipeline: {g.tasks} tasks ({g.errors} ended in error) | transitions "
        f"{g.transitions} | retries {g.retries} | rollbacks {g.rollbacks} | programs "
        f"{g.candidates}",
        f"    IRQN: {irqn} | repair iterations {g.repair_iterations} ({g.repaired} versions "
        f"repaired) | accepted versions {g.accepted}",
        f"    calls {g.calls} | tokens {_int(_sum_tokens(g))} | cost {_usd(g.cost_usd)} | per "
        f"accepted version: {per_version}"]


def _sum_tokens(g: GenerationSummary) -> int | None:
    if g.prompt_tokens is None and g.completion_tokens is None:
        return None
    return (g.prompt_tokens or 0) + (g.completion_tokens or 0)


def _similarity(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _judging_lines(summary: RunSummary, judging: JudgingSummary) -> list[str]:
    blend = 100 * judging.execution_weight
    lines = [
        f"panel: {', '.join(judging.judges)} | {judging.items_judged} items scored, "
        f"{judging.judge_failed} judge_failed | functionality and logic {blend:.0f}% hidden tests",
    ]
    if summary.by_model is not None:
        lines += [f"dimensions of {model}: " + " | ".join(
            f"{d} {score:.1f}" for d, score in m.dimensions.items())
            for model, m in summary.by_model.items() if m.dimensions]
    elif summary.dimensions:
        lines.append("dimensions: " + " | ".join(
            f"{d} {score:.1f}" for d, score in summary.dimensions.items()))
    if judging.sigma is not None:
        bands = ", ".join(f"{n} {band}" for band, n in judging.agreement_counts.items())
        alphas = " | ".join(f"{d} {_alpha(a)}" for d, a in judging.alpha.items())
        lines.append(f"agreement: {summary.agreement} (mean sigma {judging.sigma:.1f}; items: {bands})")
        lines.append(f"krippendorff alpha: {alphas}")
    if judging.mean_item_ci95 is not None:
        ci = judging.mean_item_ci95
        lines.append(f"panel spread (mean of the items' CI95 over their judges): {ci.low:.1f}-{ci.high:.1f}")
    width = max(len("judge"), *(len(r.judge) for r in judging.per_judge))
    lines.append(f"  {'judge':<{width}}  items  scored  invalid  unreadable  failed   mean  "
                 "latency")
    for r in judging.per_judge:
        mean = "n/a" if r.mean_overall is None else f"{r.mean_overall:.1f}"
        flag = "  (self-judging)" if r.self_judging else ""
        lines.append(
            f"  {r.judge:<{width}}  {r.items:>5}  {r.scored:>6}  {r.invalid_answers:>7}  "
            f"{_pct(r.invalid_answer_rate):>10}  {r.failures:>6}  {mean:>5}  "
            f"{_secs(r.mean_latency_s):>7}{flag}"
        )
    return lines


def _alpha(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _usage_lines(summary: RunSummary, run: RunInfo) -> list[str]:
    roles = {name: totals for name, totals in summary.totals_by_role.items() if totals.calls}
    offline = {name: _answered_offline(name, run) for name in roles}
    total = _usage(summary.totals, bool(roles) and all(offline.values()))
    if summary.by_model is not None:  # the target's calls are each model's own
        return [f"model calls of all models {total}"] + [
            line for name, totals in roles.items() for line in (
                [f"  target {model}: {_usage(m.totals_by_role['target'], _builtin(model))}"
                 for model, m in summary.by_model.items() if "target" in m.totals_by_role]
                if name == "target" else [f"  {name}: {_usage(totals, offline[name])}"])]
    if len(roles) <= 1:
        return [f"model calls {total}"]
    return [f"model calls {total}"] + [
        f"  {name}: {_usage(totals, offline[name])}" for name, totals in roles.items()
    ]


def _resumed_line(resumed: ResumedRun) -> str:
    """A resumed run's items and model calls: kept from earlier sessions, and this session's."""
    def calls(totals: Totals) -> str:
        cost = "" if totals.cost_usd is None else f", cost {_usd(totals.cost_usd)}"
        return f"model calls {totals.calls}{cost}"

    return (f"resumed: {resumed.kept} items kept from earlier sessions ({calls(resumed.kept_totals)}"
            f"), {resumed.run_now} run in this session ({calls(resumed.session_totals)}; an "
            "answer replayed from the store counts no call)")


def _answered_offline(role: str, run: RunInfo) -> bool:
    """Whether the calls of ``role`` went to the plugin's own offline models (``r2r/...``)."""
    if role == "target":  # a run of several models names them all, separated by commas
        return all(_builtin(model) for model in run.model.split(","))
    if role == "judges":
        return all(_builtin(judge) for judge in run.judges)
    return False


def _builtin(model: str) -> bool:
    return model.startswith(BUILTIN_PREFIX)


def _usage(totals: Totals, offline: bool) -> str:
    """``totals``; said once when none of its tokens or cost is known."""
    if totals.prompt_tokens is None and totals.completion_tokens is None \
            and totals.cost_usd is None:
        if not totals.calls:
            return "0"
        why = "answered offline: no tokens, no cost" if offline else "no tokens or cost reported"
        return f"{totals.calls} ({why})"
    reasoning = (f" ({totals.reasoning_tokens} reasoning)" if totals.reasoning_tokens else "")
    return (f"{totals.calls} | prompt tokens {_int(totals.prompt_tokens)} | "
            f"completion tokens {_int(totals.completion_tokens)}{reasoning} | "
            f"cost {_usd(totals.cost_usd)}")


def baseline_lines(baseline: BaselineReport) -> list[str]:
    """The baseline comparison: scores, the paired difference with its CI95, worst drops."""
    lines = [
        "",
        f"baseline {baseline.run_id} ({baseline.path}): baseline {baseline.baseline_score:.1f} | "
        f"candidate {baseline.candidate_score:.1f} | difference {baseline.diff:+.1f} "
        f"(CI95 {baseline.diff_low:+.1f} to {baseline.diff_high:+.1f}, {baseline.n_pairs} pairs)",
    ]
    if baseline.worst:
        lines.append("  regressed most: " + ", ".join(
            f"{r.requirement} {r.baseline:.0f}->{r.candidate:.0f}" for r in baseline.worst
        ))
    return lines


def _dataset_table(dataset: str, m: Mapping[str, Value], passes: PassAtK | None = None
                   ) -> list[str]:
    rows = [
        ("quality", [
            ("accepted@1", _pct(m["accepted_at_1"])),
            ("pass_ratio mean/p50/p90",
             "/".join(_ratio(m[k]) for k in ("pass_ratio_mean", "pass_ratio_p50", "pass_ratio_p90"))),
            ("exec_success", _pct(m["exec_success_rate"])),
        ]),
        ("errors", [
            (name, _pct(m.get(f"{name}_rate")))  # a schema-2 document has no truncated_rate
            for name in ERROR_DISTRIBUTION_STATUSES
        ]),
        ("cost", [
            ("avg gen tokens", _num(m["avg_total_gen_tokens"])),
            ("tokens/solved", _num(m["cost_per_solved_tokens"])),
            ("throughput", f"{_num(m['throughput'], 2)}/s"),
        ]),
        ("sandbox time", [
            ("avg", _secs(m["avg_total_judge_time"])),
            ("p50/p95/p99",
             "/".join(_secs(m[k]) for k in ("p50_total_judge_time", "p95_total_judge_time",
                                             "p99_total_judge_time"))),
            ("per solved", _secs(m["cost_per_solved_judge_time"])),
        ]),
        ("reliability", [
            ("api_error", _pct(m["api_error_rate"])),
            ("sandbox_error", _pct(m["sandbox_error_rate"])),
        ]),
    ]
    if passes is not None:
        rows.insert(1, ("pass@k", _pass_at_k_cells(passes)))
    width = max(len(label) for label, _ in rows)
    return [f"[{dataset}]"] + [
        f"  {label:<{width}}  " + " | ".join(f"{name} {value}" for name, value in cells)
        for label, cells in rows
    ]


def _models_table(dataset: str, by_model: Mapping[str, ModelSummary]) -> list[str]:
    """One dataset's Phase-0 metrics in a run of several models: a row per model, in three
    tables (quality, errors, cost)."""
    rows = {model: m.phase0[dataset] for model, m in by_model.items() if dataset in m.phase0}
    passes = {model: by_model[model].pass_at_k.get(dataset) for model in rows}
    ks = sorted({k for p in passes.values() if p is not None for k in p.values},
                key=lambda k: int(k.removeprefix("pass@")))
    errors = [*ERROR_DISTRIBUTION_STATUSES, "api_error", "sandbox_error"]
    quality = [["quality", "accepted@1", *ks, "pass_ratio mean/p50/p90", "exec_success"]] + [
        [model, _pct(m["accepted_at_1"]),
         *(_pct(found.values.get(k)) if (found := passes[model]) else "n/a" for k in ks),
         "/".join(_ratio(m[k]) for k in ("pass_ratio_mean", "pass_ratio_p50", "pass_ratio_p90")),
         _pct(m["exec_success_rate"])] for model, m in rows.items()]
    failures = [["errors", *errors]] + [
        [model, *(_pct(m.get(f"{name}_rate")) for name in errors)] for model, m in rows.items()]
    cost = [["cost", "avg gen tokens", "tokens/solved", "throughput", "sandbox avg",
             "sandbox p50/p95/p99", "sandbox per solved"]] + [
        [model, _num(m["avg_total_gen_tokens"]), _num(m["cost_per_solved_tokens"]),
         f"{_num(m['throughput'], 2)}/s", _secs(m["avg_total_judge_time"]),
         "/".join(_secs(m[k]) for k in ("p50_total_judge_time", "p95_total_judge_time",
                                         "p99_total_judge_time")),
         _secs(m["cost_per_solved_judge_time"])] for model, m in rows.items()]
    return [f"[{dataset}] by model"] + [
        "  " + line for table in (quality, failures, cost) for line in aligned(table)]


def _pass_at_k_cells(passes: PassAtK) -> list[tuple[str, str]]:
    each = (f"{passes.min_samples} each" if passes.min_samples == passes.max_samples
            else f"{passes.min_samples}-{passes.max_samples} each")
    samples = f"{passes.samples} over {passes.tasks} tasks ({each}), {passes.correct} correct"
    return [*((name, _pct(value)) for name, value in passes.values.items()), ("samples", samples)]


def _pct(value: Value) -> str:
    return "n/a" if not isinstance(value, float | int) else f"{100 * value:.1f}%"


def _ratio(value: Value) -> str:
    return "n/a" if not isinstance(value, float | int) else f"{value:.3f}"


def _num(value: Value, digits: int = 1) -> str:
    if value == "inf":
        return "inf (nothing solved)"
    return "n/a" if not isinstance(value, float | int) else f"{value:.{digits}f}"


def _secs(value: Value) -> str:
    if value == "inf":
        return "inf (nothing solved)"
    if not isinstance(value, float | int):
        return "n/a"
    return f"{1000 * value:.0f} ms" if value < 1 else f"{value:.2f} s"


def _int(value: int | None) -> str:
    return "unknown" if value is None else str(value)


def _usd(value: float | None) -> str:
    return "unknown" if value is None else f"${value:.4f}"
