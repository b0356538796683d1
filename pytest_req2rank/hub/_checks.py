"""What the hub checks of a submission before ranking it.

Refusals (the submission is not kept): the results schema, the sandbox's isolation, the
evidence chain and its items, the aggregates recomputed from the items, the timeline.
Flags (kept, shown, not ranked until an admin clears them): statistics that honest runs
rarely produce.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from ..evidence import item_entries, verify_chain, verify_items
from ..judging import PanelConfig, aggregate_verdicts, weighted_overall
from ..models import (
    DEFAULT_EXECUTION_WEIGHT,
    MODEL_STATUSES,
    PRIORITY_WEIGHTS,
    WEAK_ISOLATION,
    ItemResult,
    PanelResult,
)
from ..report import InvalidResults, ResultsDocument, build_summary, validate_results
from ._config import HubConfig
from ._errors import Refused

TOLERANCE = 0.011
"""Aggregates are rounded to two decimals: a difference beyond this is a mismatch."""
ORDER_SLACK_S = 5.0
"""How far an item may finish before the one ahead of it in the chain (workers report late)."""
MIN_EXECUTION_S = 0.0005
"""Running code against tests in a sandbox takes at least this long."""
EXECUTION_SLACK = 1.5
"""How far a worker's summed sandbox executions may exceed the run's wall time (clocks and
rounding)."""
MIN_RANKED_ITEMS = 5


def parse_results(data: Any) -> ResultsDocument:
    """The results document of a submission, validated against the shipped schema."""
    if not isinstance(data, dict):
        raise Refused(422, "invalid_results", "results: expected the results JSON object of a run")
    try:
        validate_results(data)
    except InvalidResults as exc:
        raise Refused(422, "invalid_results",
                      f"results: not a valid results JSON at {exc.where}: {exc.message}") from None
    return ResultsDocument.model_validate(data)


def check_consistency(document: ResultsDocument) -> None:
    """Every item is of the run's model."""
    other = next((item for item in document.items if item.model != document.run.model), None)
    if other is not None:
        raise Refused(422, "invalid_results", f"item {other.item_id} is of model {other.model!r}"
                      f", the run of {document.run.model!r}; submit one model's run")


def check_isolation(document: ResultsDocument) -> None:
    level = document.run.isolation
    if level is None or level in WEAK_ISOLATION:
        raise Refused(422, "weak_isolation", f"the run's sandbox isolation is {level or 'unknown'}"
                      ", weaker than the default 'full' (or 'remote'); the leaderboard takes "
                      "runs made with the default sandbox only")


def check_evidence(evidence: Any, document: ResultsDocument, nonce: str) -> None:
    """The chain recomputes, starts from ``nonce`` and this run, and records exactly the items."""
    if not isinstance(evidence, list) or not all(isinstance(e, dict) for e in evidence):
        raise Refused(422, "evidence_mismatch", "evidence: expected a list of chain entries")
    mismatch = verify_chain(evidence)
    if mismatch is None:
        first = evidence[0]
        if first.get("nonce") != nonce or first.get("run_id") != document.run.id:
            raise Refused(422, "evidence_mismatch", "evidence entry 0: the chain starts from "
                          f"nonce {first.get('nonce')!r} and run {first.get('run_id')!r}, not "
                          f"this submission's {nonce!r} and {document.run.id!r}")
        mismatch = verify_items(evidence, document.items)
    if mismatch is not None:
        raise Refused(422, "evidence_mismatch", f"evidence {mismatch}")


def scored_items(document: ResultsDocument) -> list[ItemResult]:
    """The items the run's score covers (an N-version run's ensemble checks are not)."""
    return [item for item in document.items
            if item.nversion is None or item.nversion.role == "version"]


def check_panels(document: ResultsDocument) -> None:
    """Each judged item's score is what its judges' verdicts give: every verdict's overall
    from its five scores, the panel (its score, dimensions, CI95, judges counted) aggregated
    again from the verdicts under the run's weights and execution weight, and the execution
    ratio the panel blended in one the item's test outcomes allow (each test weighs 1 to 3
    by its priority, which the hub does not see; the replays grade it exactly)."""
    judged = [item for item in document.items if item.panel is not None]
    if not judged:
        return
    settings = document.run.settings
    try:
        config = PanelConfig(weights=settings.get("weights"), execution_weight=settings.get(
            "execution_weight", DEFAULT_EXECUTION_WEIGHT))
    except ValueError as exc:
        raise Refused(422, "score_mismatch", f"run.settings: {exc}") from None
    for item in judged:
        assert item.panel is not None
        where = f"item {item.item_id}"
        for verdict in item.judges:
            if verdict.scores is None:
                continue
            expected = weighted_overall(verdict.scores, config.weights)
            if not _same(verdict.overall, expected):
                raise Refused(422, "score_mismatch", f"{where}: {verdict.judge}'s overall is "
                              f"{verdict.overall!r}, but its scores give {expected!r}")
        _check_execution_ratio(item, item.panel)
        try:
            redone = aggregate_verdicts(item.judges, item.panel.execution_ratio, config)
        except ValueError as exc:
            raise Refused(422, "score_mismatch", f"{where}: its verdicts: {exc}") from None
        pairs: list[tuple[str, Any, Any]] = [
            ("score", item.score, redone.overall), ("panel.overall", item.panel.overall,
                                                    redone.overall),
            ("panel.status", item.panel.status, redone.status),
            ("panel.n_judges", item.panel.n_judges, redone.n_judges),
            ("panel.ci95", item.panel.ci95 and list(item.panel.ci95),
             redone.ci95 and list(redone.ci95)),
            *((f"panel.dimensions.{name}", item.panel.dimensions.get(name),
               redone.dimensions.get(name))
              for name in sorted(item.panel.dimensions.keys() | redone.dimensions.keys()))]
        for field, given, expected in pairs:
            if not _same(given, expected):
                raise Refused(422, "score_mismatch", f"{where}: {field} is {given!r}, but its "
                              f"judges' verdicts give {expected!r}")


def _check_execution_ratio(item: ItemResult, panel: PanelResult) -> None:
    ratio = panel.execution_ratio
    passed = sum(test.status == "success" for test in item.tests)
    failed = len(item.tests) - passed
    if item.tests:
        light, heavy = min(PRIORITY_WEIGHTS.values()), max(PRIORITY_WEIGHTS.values())
        low = passed * light / (passed * light + failed * heavy)
        high = passed * heavy / (passed * heavy + failed * light)
        fits = ratio is not None and low - 1e-9 <= ratio <= high + 1e-9
    else:
        fits = ratio == (0.0 if item.status in MODEL_STATUSES and item.status != "success"
                         else None)
    if not fits:
        raise Refused(422, "score_mismatch", f"item {item.item_id}: panel.execution_ratio is "
                      f"{ratio!r}, which {passed} of {len(item.tests)} tests passed cannot give")


def check_aggregates(document: ResultsDocument) -> None:
    """Recompute overall, CI95, dimensions and agreement from the items; refuse any mismatch."""
    summary = document.summary
    if summary.overall_score is None:
        raise Refused(422, "nothing_scored", "the run scored no item; there is nothing to rank")
    redone = build_summary(scored_items(document), planned=summary.items_planned,
                           wall_time_s=summary.wall_time_s, seed=document.run.seed)
    pairs: list[tuple[str, Any, Any]] = [
        ("summary.overall_score", summary.overall_score, redone.overall_score),
        ("summary.ci95.low", summary.ci95 and summary.ci95.low, redone.ci95 and redone.ci95.low),
        ("summary.ci95.high", summary.ci95 and summary.ci95.high,
         redone.ci95 and redone.ci95.high),
        ("summary.agreement", summary.agreement, redone.agreement),
        ("summary.items_total", summary.items_total, redone.items_total),
    ]
    pairs += [(f"summary.dimensions.{name}", summary.dimensions.get(name),
               redone.dimensions.get(name))
              for name in sorted(summary.dimensions.keys() | redone.dimensions.keys())]
    for where, given, expected in pairs:
        if not _same(given, expected):
            raise Refused(422, "score_mismatch", f"{where} is {given!r}, but the items give "
                          f"{expected!r}; submit the run's results as the run wrote them")


def _same(given: Any, expected: Any) -> bool:
    if isinstance(given, bool) or isinstance(expected, bool):
        return given is expected
    if isinstance(given, int | float) and isinstance(expected, int | float):
        return abs(float(given) - float(expected)) <= TOLERANCE
    if isinstance(given, list) and isinstance(expected, list):
        return len(given) == len(expected) and all(map(_same, given, expected))
    return bool(given == expected)


def _moment(text: str, where: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        raise Refused(422, "timeline", f"{where}: {text!r} is no ISO 8601 timestamp") from None
    if moment.tzinfo is None:
        raise Refused(422, "timeline", f"{where}: {text!r} has no time zone")
    return moment


def check_timeline(document: ResultsDocument, issued_at: datetime, received_at: datetime,
                   evidence: Sequence[dict[str, Any]], config: HubConfig) -> None:
    """The run happened after its nonce was issued and before it was submitted, items in
    order, each taking at least what its stages need, and each worker's sandbox executions,
    which take turns, inside the run's wall time. Reads only the run's and the items'
    timestamps and timings and the items' workers (each item's in its chain entry), never a
    setting: the parallelism of model calls is the submitter's to claim."""
    skew = timedelta(seconds=config.clock_skew_s)
    earliest, latest = issued_at - skew, received_at + skew
    run_start = _moment(document.run.started_at, "run.started_at")
    run_end = _moment(document.run.finished_at, "run.finished_at")
    if not earliest <= run_start <= run_end <= latest:
        raise Refused(422, "timeline", f"the run ({document.run.started_at} to "
                      f"{document.run.finished_at}) is not inside the nonce's lifetime from "
                      f"{issued_at.isoformat(timespec='seconds')} to its submission at "
                      f"{received_at.isoformat(timespec='seconds')}")
    by_id = {item.item_id: item for item in document.items}
    previous: datetime | None = None
    executions: dict[str, float] = defaultdict(float)
    for entry in item_entries(evidence):
        item = by_id[entry["item_id"]]
        where = f"evidence entry {entry['index']} (item {item.item_id})"
        start = _moment(item.started_at, where + " started_at")
        end = _moment(item.finished_at, where + " finished_at")
        if not earliest <= start <= end <= latest:
            raise Refused(422, "timeline", f"{where}: ran from {item.started_at} to "
                          f"{item.finished_at}, outside the nonce's lifetime and the submission")
        if previous is not None and end < previous - timedelta(seconds=ORDER_SLACK_S):
            raise Refused(422, "timeline", f"{where}: finished at {item.finished_at}, well "
                          "before the item recorded ahead of it")
        previous = max(end, previous) if previous else end
        timings = item.timings
        if timings.total_s + 1.0 < timings.generation_s + timings.execution_s \
                or (end - start).total_seconds() + 1.0 < timings.total_s:
            raise Refused(422, "timeline", f"{where}: its stage durations (generation "
                          f"{timings.generation_s:.3f} s, execution {timings.execution_s:.3f} s, "
                          f"total {timings.total_s:.3f} s) do not fit its timestamps")
        ran_tests = item.tests_total > 0 and item.status not in (
            "api_error", "sandbox_error", "syntax_error", "truncated")
        if ran_tests and timings.execution_s < MIN_EXECUTION_S:
            raise Refused(422, "timeline", f"{where}: {item.tests_total} tests ran in "
                          f"{timings.execution_s:.4f} s, faster than any sandbox")
        executions[item.worker] += timings.execution_s
    wall = (run_end - run_start).total_seconds() + 2.0  # started/finished are whole seconds
    for worker, busy in sorted(executions.items()):
        if busy > wall * EXECUTION_SLACK:
            raise Refused(422, "timeline", f"worker {worker}'s sandbox executions took "
                          f"{busy:.1f} s in a run of {wall:.0f} s; a worker's executions "
                          "take turns, one at a time, so that much does not fit")


def statistical_flags(document: ResultsDocument, history: Sequence[float],
                      config: HubConfig) -> list[str]:
    """Reasons to hold the submission for review instead of ranking it (empty: none)."""
    flags: list[str] = []
    items = [item for item in scored_items(document) if item.score is not None]
    scores = [float(item.score or 0.0) for item in items]
    summary = document.summary
    if len(items) < MIN_RANKED_ITEMS:
        flags.append(f"only {len(items)} scored items; a ranking needs {MIN_RANKED_ITEMS} or more")
    elif summary.ci95 is not None and summary.ci95.high - summary.ci95.low < 1e-9 \
            and len(items) < 30:
        flags.append(f"a CI95 of zero width over {len(items)} items: every item scored the same")
    if summary.items_total < summary.items_planned:
        flags.append(f"{summary.items_planned - summary.items_total} of {summary.items_planned} "
                     "planned items have no result")
    if scores and all(score >= 100.0 for score in scores):
        flags.append("every item scored 100")
    panels = [item.panel for item in items if item.panel and item.panel.n_judges >= 2]
    if len(panels) >= MIN_RANKED_ITEMS and all(p.sigma is not None and p.sigma == 0.0
                                               for p in panels):
        flags.append(f"the judges agreed exactly on all {len(panels)} multi-judge items")
    for item in items:
        if item.tests_total and item.pass_ratio == 0.0 and (item.score or 0.0) >= 90.0:
            flags.append(f"item {item.item_id} scored {item.score} with none of its tests passed")
            break
        if item.kind == "static" and item.panel is None and item.sample is None \
                and (item.score == 100.0) != (item.status == "success"):
            flags.append(f"item {item.item_id} scored {item.score} with status {item.status}")
            break
    if len(history) >= config.history_min and summary.overall_score is not None:
        mean = sum(history) / len(history)
        if abs(summary.overall_score - mean) > config.history_max_diff:
            flags.append(f"score {summary.overall_score} is {abs(summary.overall_score - mean):.1f}"
                         f" points from this model's mean {mean:.1f} over {len(history)} "
                         "accepted submissions")
    return flags


def complexity_mix(document: ResultsDocument) -> dict[str, int]:
    """Scored items per complexity (``none`` for items without one, as static suites)."""
    return dict(Counter(item.complexity or "none" for item in scored_items(document)))
