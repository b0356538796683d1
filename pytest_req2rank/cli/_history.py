"""Looking back at past runs: ``runs`` (the list), ``show`` (one run's summary) and
``compare`` (two runs paired on the requirements both scored, as ``--r2r-baseline`` does)."""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from ..report import (
    ResultsDocument,
    RunSummary,
    answered_by,
    baseline_lines,
    compare_runs,
    item_counts,
    render_summary,
    run_models,
    scores_by_requirement,
)
from ..scoring import EXIT_GATE_FAILED
from ._command import EXIT_OK, Command, CommandError
from ._stored_runs import UNFINISHED, StoredRun, load_run, open_history

_PATH_IN_NAME = re.compile(r"^(jsonl:|r2r/samples:)(.*/)([^/]+)$")


def add_runs_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--limit", type=int, default=None, metavar="N",
                        help="Show only the N newest runs")


def run_runs(args: argparse.Namespace) -> int:
    with open_history(args.db) as history:
        rows = history.runs()
        rankings = history.rankings()
        if args.limit is not None:
            rows = rows[:max(args.limit, 0)]
        table = [["run", "started", "status", "model", "suite", "items", "score", "95% CI"]]
        for row in rows:
            summary = _summary(row) if row.get("summary") else None
            if summary is None and row.get("status") == "running":
                summary = load_run(history, row["run_id"]).document.summary
            table.append(_run_row(row, summary, rankings.get(row["run_id"])))
    if len(table) == 1:
        print(f"no runs in {args.db}")
        return EXIT_OK
    for line in _aligned(table):
        print(line)
    return EXIT_OK


def _summary(row: dict[str, Any]) -> RunSummary | None:
    try:
        return RunSummary.model_validate(json.loads(row["summary"]))
    except ValueError:
        return None


def _run_row(row: dict[str, Any], summary: RunSummary | None,
             ranking: list[dict[str, Any]] | None) -> list[str]:
    status = {"running": UNFINISHED}.get(row.get("status") or "", row.get("status") or "")
    if summary is None:
        return [row["run_id"], _when(row["started_at"]), status, _short(row["model"]),
                _short(row["suite"]), str(row["items"]), "n/a", "n/a"]
    score = "n/a" if summary.overall_score is None else f"{summary.overall_score:.1f}"
    ci = "n/a" if summary.ci95 is None else f"{summary.ci95.low:.1f}-{summary.ci95.high:.1f}"
    finished, planned = item_counts(summary)  # an N-version run's ensemble checks included
    if not ranking and summary.ranking is not None:  # a store no run of this version opened
        ranking = [{"model": r.model, "rank_group": r.group} for r in summary.ranking.models]
    model = _ranked(ranking) if ranking else _short(row["model"])
    if summary.by_model is not None:  # no score pools its models: each model's, `show` has more
        order = [r["model"] for r in ranking] if ranking else list(summary.by_model)
        score = "/".join(_score(summary.by_model[m].overall_score) if m in summary.by_model
                         else "n/a" for m in order)
        ci = f"{len(summary.by_model)} models"
    return [row["run_id"], _when(row["started_at"]), status, model,
            _short(row["suite"]), f"{finished}/{planned}", score, ci]


def _score(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def _ranked(ranking: list[dict[str, Any]]) -> str:
    """A ranked run's models best first: ``=`` between models the data cannot separate (one
    group), ``>`` where they separate every model before from every model after."""
    text = _short(ranking[0]["model"])
    for before, row in pairwise(ranking):
        separated = row["rank_group"] != before["rank_group"]
        text += f" {'>' if separated else '='} {_short(row['model'])}"
    return text


def _when(timestamp: str) -> str:
    return (timestamp or "").replace("T", " ")[:19]


def _short(name: str) -> str:
    """A model or suite name with a path shown by its file name (``show`` gives it whole)."""
    return _PATH_IN_NAME.sub(r"\1\3", name or "")


def _aligned(table: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    right = {5, 6}  # items, score
    return ["  ".join(cell.rjust(w) if i in right else cell.ljust(w)
                      for i, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip()
            for row in table]


@dataclass
class _Locations:
    """Where a stored run wrote its outputs (``render_summary`` names them)."""

    results: Path
    qa_log: Path
    store: Path


def add_show_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID", help="A run id, as `req2rank runs` lists them")


def run_show(args: argparse.Namespace) -> int:
    with open_history(args.db) as history:
        stored = load_run(history, args.run_id)
    for line in show_lines(stored, args.db):
        print(line)
    return EXIT_OK


def show_lines(stored: StoredRun, db: Path) -> list[str]:
    """The run's summary as the terminal summary printed it, after a line saying how it ended."""
    status = {
        "finished": "finished",
        "interrupted": "interrupted (stopped before every planned item ran; the summary "
                       "covers the finished items)",
        UNFINISHED: "unfinished (still running, or killed before its summary; recomputed "
                    "from the stored items)",
    }.get(stored.status, stored.status)
    errors = {} if stored.results.is_file() else {
        "results": f"no results JSON at {stored.results} (moved, or the run did not finish); "
                   "`req2rank report` writes the reports from the store"}
    paths = _Locations(stored.results, stored.qa_log, db)
    return [f"status: {status}", *render_summary(stored.document, paths, errors)]


def add_compare_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("baseline", metavar="RUN_A", help="The baseline run")
    parser.add_argument("candidate", metavar="RUN_B", help="The run compared with it")
    parser.add_argument("--max-drop", type=float, default=0.0, metavar="POINTS",
                        help="Largest tolerated drop in score points (exit code 6 beyond it)")
    parser.add_argument("--model", metavar="MODEL",
                        help="In a run of several models, the model whose answers are compared "
                        "(default: the other run's model, when that run has one)")


def compared_models(a: ResultsDocument, b: ResultsDocument, model: str | None
                    ) -> tuple[str | None, str | None]:
    """Which model's answers of each run are compared: ``None`` for a run of one model (all its
    items); in a run of several, ``model``, else the other run's one model. A one-line
    :class:`CommandError` when that names no model of the run."""
    ranked = {doc.run.id: run_models(doc) for doc in (a, b)}
    if model is not None and not any(ranked.values()):
        raise CommandError(f"--model: runs {a.run.id} and {b.run.id} each benchmarked one "
                           "model; --model picks one of a run of several, leave it out")
    chosen: list[str | None] = []
    for doc, other in ((a, b), (b, a)):
        models = ranked[doc.run.id]
        if not models:
            chosen.append(None)
            continue
        wanted = model or (other.run.model if not ranked[other.run.id] else None)
        if wanted is None:
            raise CommandError(f"runs {a.run.id} and {b.run.id} both ranked several models; "
                               f"compare one model's answers with --model=MODEL (of "
                               f"{doc.run.id}: {', '.join(models)}), or rank them all with "
                               f"`req2rank rank`")
        if wanted not in models:
            raise CommandError(f"run {doc.run.id} ranked {', '.join(models)}, not {wanted}; "
                               f"name the model to compare with --model=MODEL (one of them)")
        chosen.append(wanted)
    return chosen[0], chosen[1]


def run_compare(args: argparse.Namespace) -> int:
    if args.max_drop < 0 or args.max_drop > 100:
        raise CommandError(f"--max-drop: expected 0 to 100 score points, got {args.max_drop:g}")
    with open_history(args.db) as history:
        baseline = load_run(history, args.baseline)
        candidate = load_run(history, args.candidate)
    a, b = baseline.document, candidate.document
    model_a, model_b = compared_models(a, b, args.model)
    answers = b.items if model_b is None else answered_by(b.items, model_b)
    gate, report = compare_runs(a, answers, path=str(args.db), max_drop=args.max_drop,
                                seed=b.run.seed, model=model_a)
    if report is None:
        scored = [scores_by_requirement(items) for items in (
            a.items if model_a is None else answered_by(a.items, model_a), answers)]
        if scored[0].keys() & scored[1].keys():
            raise CommandError(f"runs {a.run.id} and {b.run.id}: {gate.message}")
        raise CommandError(f"runs {a.run.id} ({len(scored[0])} requirements scored) and "
                           f"{b.run.id} ({len(scored[1])}) share no scored requirement: nothing "
                           "to compare; compare runs of one suite and seed (a run with "
                           "--r2r-baseline reruns its baseline's)")
    lines = [f"{role:<9} {doc.run.id} | model {doc.run.model if model is None else model} "
             + ("" if model is None else f"(of {doc.run.model}) ")
             + f"| suite {doc.run.suite} | seed {doc.run.seed} | {stored.status}"
             for role, doc, stored, model in (("baseline", a, baseline, model_a),
                                              ("candidate", b, candidate, model_b))]
    if a.run.seed != b.run.seed:
        lines.append("note: the runs' seeds differ, so only the requirements both drew are "
                     "paired")
    lines += baseline_lines(report)[1:]  # without its leading blank line
    lines.append(f"gate {gate.name}: {'PASSED' if gate.passed else 'FAILED'} ({gate.message})")
    for line in lines:
        print(line)
    return EXIT_OK if gate.passed else EXIT_GATE_FAILED


COMMANDS = (
    Command("runs", "List the stored runs, newest first (model, suite, score, CI, date)",
            add_runs_arguments, run_runs),
    Command("show", "Print a stored run's summary again", add_show_arguments, run_show),
    Command("compare", "Compare two runs on the requirements both scored (paired, as "
            "--r2r-baseline does)", add_compare_arguments, run_compare),
)
