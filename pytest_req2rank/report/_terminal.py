"""The terminal summary: one table per dataset, warnings, totals and where the outputs went."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from ._document import BaselineReport, ResultsDocument

Value = float | str | None


class OutputLocations(Protocol):
    results: Path
    qa_log: Path
    store: Path


def render_summary(
    document: ResultsDocument, paths: OutputLocations, write_error: str | None = None
) -> list[str]:
    """The lines printed after the run (without the section separator)."""
    run, summary = document.run, document.summary
    lines = [f"run {run.id} | model {run.model} | suite {run.suite} | seed {run.seed}"]
    if summary.overall_score is None:
        lines.append("score: n/a (no item was scored: every item hit an infrastructure error)")
    else:
        interval = ""
        if summary.ci95 is not None:
            interval = f" (95% CI {summary.ci95.low:.1f}-{summary.ci95.high:.1f}, {summary.ci95.method})"
        meaning = "100 x accepted@1" if summary.ci95 is None or summary.ci95.method == "wilson" else (
            "mean item score")
        lines.append(f"score: {summary.overall_score:.1f}/100 = {meaning}{interval}")
    counts = ", ".join(f"{n} {status}" for status, n in summary.status_counts.items() if n)
    lines.append(
        f"items: {summary.items_total}/{summary.items_planned} finished ({counts or 'none'}) "
        f"in {summary.wall_time_s:.1f} s"
    )
    for dataset, metrics in summary.phase0.items():
        lines += ["", *_dataset_table(dataset, metrics)]
    totals = summary.totals
    lines += [
        "",
        f"model calls {totals.calls} | prompt tokens {_int(totals.prompt_tokens)} | "
        f"completion tokens {_int(totals.completion_tokens)} | cost {_usd(totals.cost_usd)}",
    ]
    lines += [f"warning: {warning}" for warning in summary.warnings]
    if summary.baseline is not None:
        lines += _baseline_lines(summary.baseline)
    for gate in summary.gates:
        lines.append(f"gate {gate.name}: {'PASSED' if gate.passed else 'FAILED'} ({gate.message})")
    if write_error:
        lines.append(f"error: {write_error}")
    else:
        lines.append(f"results: {paths.results}")
    lines.append(f"q&a log: {paths.qa_log} | store: {paths.store}")
    return lines


def _baseline_lines(baseline: BaselineReport) -> list[str]:
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


def _dataset_table(dataset: str, m: Mapping[str, Value]) -> list[str]:
    rows = [
        ("quality", [
            ("accepted@1", _pct(m["accepted_at_1"])),
            ("pass_ratio mean/p50/p90",
             "/".join(_ratio(m[k]) for k in ("pass_ratio_mean", "pass_ratio_p50", "pass_ratio_p90"))),
            ("exec_success", _pct(m["exec_success_rate"])),
        ]),
        ("errors", [
            (name, _pct(m[f"{name}_rate"]))
            for name in ("syntax_error", "runtime_error", "timeout", "wrong_answer", "success")
        ]),
        ("cost", [
            ("avg gen tokens", _num(m["avg_total_gen_tokens"])),
            ("tokens/solved", _num(m["cost_per_solved_tokens"])),
            ("throughput", f"{_num(m['throughput'], 2)}/s"),
        ]),
        ("judge time", [
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
    width = max(len(label) for label, _ in rows)
    return [f"[{dataset}]"] + [
        f"  {label:<{width}}  " + " | ".join(f"{name} {value}" for name, value in cells)
        for label, cells in rows
    ]


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
