"""Several runs ranked: which runs can be paired, the ranking table, and its lines."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..models import ItemId, ItemResult
from ..scoring import Interval, RankedModel, Ranking, rank_models
from ._columns import aligned
from ._comparison import answered_by, run_models
from ._document import RankedRow, RankingSection, ResultsDocument
from ._summary import scores_by_cluster, scores_by_model


@dataclass(frozen=True)
class RankedRuns:
    """The ranking of some runs, each row labelled by its model (and its run's id, when two
    rows share a model), and why it is paired or not. A run of several models gives a row
    per model."""

    ranking: Ranking
    labels: dict[str, str]
    """Row label -> run id."""
    why: str


def shared_plan(documents: Sequence[ResultsDocument]) -> str | None:
    """None when every run asked the same items of the same suite with the same seed (one
    plan, so their scores pair by requirement; a run of several models asked each of its
    models the same items); else what differs."""
    first = documents[0]
    for other in documents[1:]:
        if (other.run.suite, other.run.seed) != (first.run.suite, first.run.seed):
            return (f"runs {first.run.id} and {other.run.id} differ in suite or seed "
                    f"({first.run.suite} {first.run.seed}, {other.run.suite} {other.run.seed})")
        if _asked(other) != _asked(first):
            return f"runs {first.run.id} and {other.run.id} finished different items"
    return None


def _asked(document: ResultsDocument) -> set[str]:
    """The items a run finished, whichever of its models answered them."""
    return {str(found.without_model) if (found := ItemId.try_parse(item.item_id)) else
            item.item_id for item in document.items}


def rank_runs(documents: Sequence[ResultsDocument], *, seed: int) -> RankedRuns:
    """The ranking table of ``documents`` (a row per run, or per model of a run of several):
    paired when they share their plan, else unpaired (wider intervals). ``ValueError`` when
    fewer than two runs or a row scored nothing."""
    if len(documents) < 2:
        raise ValueError("ranking needs at least two runs")
    ids = [doc.run.id for doc in documents]
    if len(set(ids)) < len(ids):
        raise ValueError(f"run {next(i for i in ids if ids.count(i) > 1)} is named twice")
    rows: list[tuple[ResultsDocument, str | None]] = []
    for doc in documents:  # a run of several models: a row per model
        models = run_models(doc)
        rows += [(doc, model) for model in models] if models else [(doc, None)]
    models = [model or doc.run.model for doc, model in rows]
    scores, labels = {}, {}
    for (doc, model), name in zip(rows, models, strict=True):
        label = name if models.count(name) == 1 else f"{name} ({doc.run.id})"
        clusters = scores_by_cluster(doc.items if model is None else
                                     answered_by(doc.items, model))
        if not clusters:
            raise ValueError(f"run {doc.run.id} has no scored item of {name} to rank")
        scores[label], labels[label] = clusters, doc.run.id
    differs = shared_plan(documents)
    why = ("paired: the runs share their plan (suite, seed and items), so each resample draws "
           "the same requirements for every model" if differs is None else
           f"unpaired: {differs}; each run's requirements are resampled on their own, so the "
           "intervals are wider")
    ranking = rank_models(scores, paired=differs is None, seed=seed)
    return RankedRuns(ranking, labels, why)


def ranking_lines(ranking: Ranking) -> list[str]:
    """The ranking table as aligned text: rank and its interval, group, model, score and CI,
    the difference to the leader and its CI, requirements."""
    pct = f"{ranking.level:.0%}"
    table = [["rank", f"{pct} rank", "group", "model", "score", f"{pct} CI",
              "diff to #1", f"{pct} CI", "reqs"]]
    for row in ranking.models:
        table.append([
            str(row.rank), f"{row.rank_low}-{row.rank_high}", str(row.group), row.model,
            f"{row.score.estimate:.1f}", f"{row.score.low:.1f}-{row.score.high:.1f}",
            "-" if row is ranking.models[0] else f"{row.diff_to_leader.estimate:+.1f}",
            "" if row is ranking.models[0] else
            f"{row.diff_to_leader.low:+.1f} to {row.diff_to_leader.high:+.1f}",
            str(row.requirements),
        ])
    lines = aligned(table, left={3})
    groups = ranking.groups
    if len(groups) < len(ranking.models):
        tied = "; ".join(" = ".join(group) for group in groups if len(group) > 1)
        lines.append(f"the data cannot separate: {tied}")
    return lines


def rank_items(items: Sequence[ItemResult], *, seed: int) -> Ranking | None:
    """The ranking table of a run of several models (items ``ITEM@MODEL``), paired: every
    model answered the same planned requirements. ``None`` when fewer than two models have a
    scored item."""
    scores = scores_by_model(items)
    if len(scores) < 2:
        return None
    return rank_models(scores, paired=True, seed=seed)


def ranking_section(ranking: Ranking, *, seed: int) -> RankingSection:
    """``ranking`` as the results JSON keeps it."""
    return RankingSection(
        paired=ranking.paired, level=ranking.level, n_resamples=ranking.n_resamples, seed=seed,
        groups=ranking.groups,
        models=[RankedRow(
            model=row.model, score=row.score.estimate, score_low=row.score.low,
            score_high=row.score.high, diff_to_leader=row.diff_to_leader.estimate,
            diff_low=row.diff_to_leader.low, diff_high=row.diff_to_leader.high, rank=row.rank,
            rank_low=row.rank_low, rank_high=row.rank_high, group=row.group,
            requirements=row.requirements) for row in ranking.models])


def section_ranking(section: RankingSection) -> Ranking:
    """The ranking a results JSON keeps, for :func:`ranking_lines`."""
    return Ranking(
        models=tuple(RankedModel(
            model=row.model, score=Interval(row.score, row.score_low, row.score_high),
            requirements=row.requirements,
            diff_to_leader=Interval(row.diff_to_leader, row.diff_low, row.diff_high),
            rank=row.rank, rank_low=row.rank_low, rank_high=row.rank_high, group=row.group)
            for row in section.models),
        paired=section.paired, level=section.level, n_resamples=section.n_resamples)
