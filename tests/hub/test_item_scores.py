"""The requirements the leaderboard ranks a submission by come from its item ids, which the
hub's plan decides, never from the clusters the submitter wrote."""

from __future__ import annotations

from pytest_req2rank.evidence import item_entry
from pytest_req2rank.hub._item_scores import requirement_scores
from pytest_req2rank.models import ItemResult
from pytest_req2rank.report import ResultsDocument, RunInfo, build_summary


def _items(clusters: list[str]) -> list[ItemResult]:
    """Two tasks of two samples each, with the given clusters in item order."""
    ids = [f"humaneval/HumanEval_{task}/s{sample}" for task in (0, 1) for sample in (0, 1)]
    return [ItemResult(item_id=item_id, dataset="humaneval", task_id=item_id.split("/")[1],
                       model="m", status="success", score=score, cluster=cluster,
                       sample=int(item_id[-1]), prompt=f"task {item_id.split('/')[1]}")
            for item_id, cluster, score in zip(ids, clusters, [100.0, 0.0, 100.0, 100.0],
                                               strict=True)]


def _kept(items: list[ItemResult]) -> dict:
    document = ResultsDocument(
        run=RunInfo(id="r", seed=1, model="m", suite="humaneval", sandbox="process",
                    plugin_version="0", started_at="2026-01-01T00:00:00+00:00",
                    finished_at="2026-01-01T00:01:00+00:00", settings={}),
        summary=build_summary(items, planned=len(items), wall_time_s=1.0, seed=1),
        items=items)
    return requirement_scores(document, [item_entry(item) for item in items])


def test_a_submitters_clusters_do_not_split_a_task_into_requirements() -> None:
    honest = _kept(_items(["humaneval/HumanEval_0"] * 2 + ["humaneval/HumanEval_1"] * 2))
    forged = _kept(_items(["a", "b", "c", "d"]))  # every sample a "requirement" of its own
    assert [r["key"].split("@")[0] for r in honest["requirements"]] == [
        "humaneval/HumanEval_0", "humaneval/HumanEval_1"]
    assert forged == honest
