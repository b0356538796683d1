"""``req2rank rank`` and ``req2rank plan`` over runs written through the store's API."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_req2rank.cli import main
from pytest_req2rank.models import ItemResult, Usage
from pytest_req2rank.report import build_summary
from pytest_req2rank.scoring import rounds_needed
from pytest_req2rank.store import Store


def store_run(db: Path, run_id: str, model: str, passed: list[bool], *, seed: int = 3,
              cost: float | None = None) -> None:
    """A finished dynamic run of ``model``: one item per requirement, passed or failed."""
    items = [ItemResult(item_id=f"dynamic/r{k}", dataset="dynamic", task_id=f"r{k}",
                        model=model, status="success" if ok else "wrong_answer", kind="dynamic",
                        score=100.0 if ok else 0.0, cluster=f"req{k}",
                        usage=Usage(calls=1, prompt_tokens=300, completion_tokens=700,
                                    cost_usd=cost))
             for k, ok in enumerate(passed)]
    summary = build_summary(items, planned=len(items), wall_time_s=1.0, seed=seed)
    store = Store(db)
    store.start_run(run_id=run_id, started_at="2026-01-01T00:00:00+00:00", model=model,
                    suite="dynamic", seed=seed, plan={"item_ids": [i.item_id for i in items]},
                    settings={"dir": str(db.parent)}, isolation="full", sandbox="process",
                    plugin_version="0.1")
    for item in items:
        store.add_item(run_id, item)
    store.finish_run(run_id, finished_at="2026-01-01T00:00:05+00:00",
                     summary=summary.model_dump(mode="json"))
    store.close()


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], list[str]]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "req2rank.db"
    store_run(path, "run-strong", "model-strong", [True] * 27 + [False] * 3, cost=0.01)
    store_run(path, "run-twin", "model-twin", [False] * 2 + [True] * 26 + [False] * 2,
              cost=0.01)
    store_run(path, "run-weak", "model-weak", [True] * 9 + [False] * 21, cost=0.01)
    store_run(path, "run-other-seed", "model-weak", [True] * 10 + [False] * 20, seed=9)
    return path


def test_rank_runs_of_one_plan_paired(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "rank", "--db", str(db), "run-weak", "run-strong", "run-twin")
    assert code == 0 and not err
    assert out[0] == "run run-weak | model model-weak | suite dynamic | seed 3"
    assert out[3].startswith("paired: the runs share their plan")
    table = out[5:]
    assert table[0].split()[:5] == ["rank", "95%", "rank", "group", "model"]
    assert [line.split()[3] for line in table[1:4]] == ["model-strong", "model-twin",
                                                        "model-weak"]
    assert table[1].split()[:3] == ["1", "1-2", "1"] and table[2].split()[:3] == ["2", "1-2", "1"]
    assert table[3].split()[:3] == ["3", "3-3", "2"]
    assert table[4] == "the data cannot separate: model-strong = model-twin"


def test_rank_runs_of_different_seeds_unpaired(db: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "rank", "--db", str(db), "run-weak", "run-other-seed")
    assert code == 0
    assert out[2].startswith("unpaired: runs run-weak and run-other-seed differ in suite or "
                             "seed") and "intervals are wider" in out[2]
    assert "model-weak (run-weak)" in "\n".join(out)


def test_rank_mistakes_are_one_line(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "rank", "--db", str(db), "run-weak")
    assert code == 2 and err == [("req2rank rank: error: rank needs at least two runs: req2rank "
                                 "rank RUN_A RUN_B [RUN…] (a run of several models ranks them in "
                                 "its summary: req2rank show RUN)")]
    code, _, err = cli(capsys, "rank", "--db", str(db), "run-weak", "nope")
    assert code == 2 and len(err) == 1 and "no run 'nope'" in err[0]


def test_plan_from_a_run_gives_rounds_and_cost(db: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "plan", "--db", str(db), "--difference", "10", "--from",
                         "run-weak")
    assert code == 0 and not err
    # run-weak: 9 of 30 pass, per-requirement sd 46.6, like-model sd x sqrt(2)
    import math
    import statistics
    sd = math.sqrt(2) * statistics.stdev([100.0] * 9 + [0.0] * 21)
    rounds = rounds_needed(10.0, sd)
    assert out[0] == (f"to detect 10 points (80% power, alpha 0.05): {rounds} rounds "
                      f"(--r2r-rounds {rounds}) per model, all models on the same requirements")
    assert f"sd {sd:.1f} points" in out[1] and "run run-weak's spread" in out[1]
    assert out[2].startswith("run run-weak: detectable difference: ")
    tokens = 1000 * rounds
    assert out[3] == (f"cost per model at run run-weak's tokens and prices (30 requirements): "
                      f"{tokens:,} tokens and ${0.01 * rounds:.2f} for {rounds} rounds")


def test_plan_without_a_run_assumes_the_widest_spread(
        db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "plan", "--db", str(db), "--difference", "5")
    assert code == 0
    assert out[0].startswith("to detect 5 points (80% power, alpha 0.05): 1570 rounds")
    assert "widest spread" in out[1] and len(out) == 2
    code, _, err = cli(capsys, "plan", "--db", str(db), "--difference", "0")
    assert code == 2 and err == [("req2rank plan: error: --difference: expected more than 0 and "
                                 "at most 100 score points, got 0")]


def test_plan_from_a_run_without_spread_says_so(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "req2rank.db"
    store_run(db, "run-flat", "m", [True] * 5)
    code, _, err = cli(capsys, "plan", "--db", str(db), "--difference", "5", "--from",
                       "run-flat")
    assert code == 2 and err == [("req2rank plan: error: every requirement of run run-flat "
                                 "scored the same: no spread to plan from; plan from a run "
                                 "whose scores vary")]
    store_run(db, "run-one", "m", [True])
    code, _, err = cli(capsys, "plan", "--db", str(db), "--difference", "5", "--from",
                       "run-one")
    assert code == 2 and "scored 1 requirement(s): a spread needs two" in err[0]


BENCHMARK = (Path(__file__).parents[2] / "benchmarks" / "test_benchmark.py").read_text()


@pytest.mark.slow
def test_three_instruments_run_on_one_plan_rank_paired(
        pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    """Three r2r/degraded instruments run with one seed (the same drawn requirements), each
    run's summary states its detectable difference, and `req2rank rank` pairs the runs."""
    pytester.makepyfile(test_benchmark=BENCHMARK)
    ids = []
    for quality in ("0", "0.5", "1"):
        result = pytester.runpytest("--r2r-model=r2r/degraded:" + quality, "--r2r-rounds=4",
                                    "--r2r-seed=5", "--r2r-judges=none", "-p", "no:xdist",
                                    "--r2r-json=" + quality + ".json")
        detectable = [line for line in result.outlines if line.startswith("detectable")]
        # every requirement of the reference's run scores 100: no spread, no figure
        assert len(detectable) == (0 if quality == "1" else 1), detectable
        ids.append(next(line.split()[1] for line in result.outlines if line.startswith("run ")))
    db = pytester.path / ".req2rank" / "req2rank.db"
    capsys.readouterr()  # the runs' own output
    code, out, err = cli(capsys, "rank", "--db", str(db), *ids)
    assert code == 0 and not err
    assert out[3].startswith("paired: the runs share their plan")
    rows = [line.split() for line in out[6:9]]
    assert [row[3] for row in rows] == ["r2r/degraded:1", "r2r/degraded:0.5", "r2r/degraded:0"]
    assert rows[0][4] == "100.0"
