"""``req2rank rank RUN_ID…`` (the ranking table of stored runs) and ``req2rank plan
--difference D`` (the rounds a run needs to detect a difference, and what they cost)."""

from __future__ import annotations

import argparse
import math

from ..report import (
    ResultsDocument,
    detectable_line,
    rank_runs,
    ranking_lines,
    requirement_of,
    run_detectable_difference,
    run_models,
    scores_by_cluster,
)
from ..scoring import detectable_difference, like_model_sd, rounds_needed
from ._command import EXIT_OK, Command, CommandError
from ._stored_runs import load_run, open_history

WORST_SD = math.sqrt(2.0) * 50.0
"""The per-requirement difference's spread with no run to measure it: two uncorrelated models
whose items pass or fail half the time (the largest spread of a 0-100 pass/fail score)."""


def add_rank_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_ids", nargs="+", metavar="RUN_ID",
                        help="Two or more runs, as `req2rank runs` lists them")


def run_rank(args: argparse.Namespace) -> int:
    if len(args.run_ids) < 2:
        raise CommandError("rank needs at least two runs: req2rank rank RUN_A RUN_B [RUN…] (a "
                           "run of several models ranks them in its summary: req2rank show RUN)")
    with open_history(args.db) as history:
        documents = [load_run(history, run_id).document for run_id in args.run_ids]
    try:
        ranked = rank_runs(documents, seed=documents[0].run.seed)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    lines = [f"run {doc.run.id} | model {doc.run.model} | suite {doc.run.suite} | seed "
             f"{doc.run.seed}" for doc in documents]
    lines += [ranked.why, "", *ranking_lines(ranked.ranking)]
    for line in lines:
        print(line)
    return EXIT_OK


def add_plan_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--difference", type=float, required=True, metavar="D",
                        help="The difference in score points (0-100) the run must detect")
    parser.add_argument("--from", dest="from_run", metavar="RUN_ID",
                        help="Measure the spread, tokens and cost from this stored run (default: "
                        "the widest spread a pass/fail score can have, and no cost)")


def run_plan(args: argparse.Namespace) -> int:
    if not 0 < args.difference <= 100:
        raise CommandError(f"--difference: expected more than 0 and at most 100 score points, "
                           f"got {args.difference:g}")
    document = None
    if args.from_run is not None:
        with open_history(args.db) as history:
            document = load_run(history, args.from_run).document
    for line in plan_lines(args.difference, document):
        print(line)
    return EXIT_OK


def plan_lines(difference: float, document: ResultsDocument | None) -> list[str]:
    """How many rounds detect ``difference`` (80 % power, alpha 0.05), with the spread and
    cost of ``document``'s run, or the widest spread without one."""
    if document is None:
        sd, basis = WORST_SD, ("the widest spread a pass/fail score can have (items passing "
                               "half the time; --from RUN_ID measures a run's own)")
    elif run_models(document):  # its models' own paired spread
        found = run_detectable_difference(document.items)
        if found is None or found.basis != "paired":
            raise CommandError(f"run {document.run.id}'s models share no two requirements "
                               "with a spread of differences; plan from a larger run")
        sd, basis = found.sd, (f"run {document.run.id}'s {len(run_models(document))} models, "
                               f"paired on {found.requirements} requirements")
    else:
        clusters = scores_by_cluster(document.items)
        measured = like_model_sd(clusters)
        if measured is None:
            raise CommandError(f"run {document.run.id} scored {len(clusters)} requirement(s): "
                               "a spread needs two; plan from a larger run")
        if measured == 0:
            raise CommandError(f"every requirement of run {document.run.id} scored the same: "
                               "no spread to plan from; plan from a run whose scores vary")
        sd, basis = measured, (f"run {document.run.id}'s spread ({document.run.model}, "
                               f"{len(clusters)} requirements)")
    rounds = rounds_needed(difference, sd)
    lines = [(f"to detect {difference:g} points (80% power, alpha 0.05): {rounds} rounds "
             f"(--r2r-rounds {rounds}) per model, all models on the same requirements"),
             (f"spread: sd {sd:.1f} points of a per-requirement difference, from {basis}; models "
             "that find the same requirements hard need fewer")]
    if document is None:
        return lines
    found = run_detectable_difference(document.items)
    if found is not None:
        lines.append(f"run {document.run.id}: {detectable_line(found)}")
    lines.append(_cost_line(document, rounds))
    at_rounds = [(n, detectable_difference(sd, n)) for n in (10, 30, 100) if n != rounds]
    lines.append("detectable at other sizes: " + ", ".join(
        f"{n} rounds {d:.1f} points" for n, d in at_rounds))
    return lines


def _cost_line(document: ResultsDocument, rounds: int) -> str:
    """The cost of ``rounds`` requirements per model, at the run's tokens and prices per
    requirement (every role: target, judges, generator)."""
    requirements = len({requirement_of(item) for item in document.items})
    models = len(run_models(document)) or 1  # a run of several: its calls are every model's
    totals = document.summary.totals
    tokens = [t for t in (totals.prompt_tokens, totals.completion_tokens) if t is not None]
    parts = []
    if tokens:
        parts.append(f"{sum(tokens) * rounds / requirements / models:,.0f} tokens")
    if totals.cost_usd is not None:
        parts.append(f"${totals.cost_usd * rounds / requirements / models:.2f}")
    if not parts:
        return (f"cost: unknown (run {document.run.id}'s models reported no tokens or prices: "
                "an offline model costs nothing)")
    return (f"cost per model at run {document.run.id}'s tokens and prices "
            f"({requirements} requirements): {' and '.join(parts)} for {rounds} rounds")


COMMANDS = (
    Command("rank", "Rank the models of two or more stored runs: scores, CIs, differences to "
            "the leader, rank intervals, groups (paired when the runs share their plan)",
            add_rank_arguments, run_rank),
    Command("plan", "How many rounds a run needs to detect a difference of D points, and what "
            "they cost at a stored run's tokens and prices", add_plan_arguments, run_plan),
)
