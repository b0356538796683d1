"""How often the benchmark orders models correctly: five instruments of known quality.

Not collected by pytest. Run:
``python tests/perf/bench_validity.py [--seeds N] [--rounds 10,20,40,80,160]
[--engine-check N]``.

The instruments are ``r2r/degraded:P`` for P = 0.5, 0.6, 0.7, 0.8, 0.9 (true order known,
true accepted@1 = P). Each simulated run draws ``rounds`` HumanEval tasks with its seed
(every instrument answers the same ones: one plan, paired), and an item is accepted exactly
when the instrument draws its reference (:meth:`DegradedProvider.draws_reference`, the
instrument's own draw): every other answer is a mutant its hidden tests kill
(``tests/execution/test_degraded_instrument.py`` checks that through the sandbox, and
``--engine-check N`` runs N seeds of 20 tasks through the engine and the sandbox here and
counts any item whose graded outcome differs from its draw). The run's statistics are then
the plugin's own: each instrument's score and CI95 (``scoring.bootstrap_ci``, and Wilson's
interval that a pass/fail run reports), and the ranking table (``scoring.rank_models``,
paired).

Reported per round count, over ``--seeds`` runs:
- Kendall's tau-b between the measured order (score) and the true order (P), its mean and
  the share of runs with tau >= 0.9;
- how often each instrument's CI95 covers its true accepted@1 (bootstrap, Wilson);
- how often each instrument's 95 % rank interval covers its true rank;
- the mean width of the rank intervals, and how many groups the data made (5 = fully
  separated).
Then the least rounds for a mean tau >= 0.9, and for tau >= 0.9 in 80 % of runs, between
models 0.1 apart.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from pytest_req2rank.models import ModelSpec, Task
from pytest_req2rank.providers import CompletionRequest, DegradedProvider, Message
from pytest_req2rank.scoring import bootstrap_ci, rank_models, wilson_interval
from pytest_req2rank.suites import load_humaneval

QUALITIES = (0.5, 0.6, 0.7, 0.8, 0.9)
RESAMPLES = 1000


def kendall_tau_b(x: list[float], y: list[float]) -> float:
    """Kendall's tau-b (ties in either ranking accounted for)."""
    concordant = discordant = ties_x = ties_y = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denominator = ((concordant + discordant + ties_x) * (concordant + discordant + ties_y)) ** 0.5
    return (concordant - discordant) / denominator if denominator else 0.0


def instruments() -> dict[str, DegradedProvider]:
    return {f"r2r/degraded:{q}": DegradedProvider(ModelSpec.parse(f"r2r/degraded:{q}"))
            for q in QUALITIES}


def draw_tasks(tasks: list[Task], rounds: int, seed: int) -> list[Task]:
    return random.Random(f"validity/{seed}").sample(tasks, rounds)


def accepted(provider: DegradedProvider, task: Task, seed: int) -> bool:
    request = CompletionRequest(messages=(Message(role="user", content=task.prompt),),
                                task=task, seed=seed)
    return provider.draws_reference(request)


def study(tasks: list[Task], rounds: int, seeds: int) -> dict[str, object]:
    models = instruments()
    truth = {name: q for name, q in zip(models, QUALITIES, strict=True)}
    true_rank = {name: len(QUALITIES) - k for k, name in enumerate(models)}
    taus, groups, widths = [], [], []
    cover_boot = dict.fromkeys(models, 0)
    cover_wilson = dict.fromkeys(models, 0)
    cover_rank = dict.fromkeys(models, 0)
    for seed in range(seeds):
        drawn = draw_tasks(tasks, rounds, seed)
        scores = {name: {task.item_id: [100.0 * accepted(provider, task, seed)]
                         for task in drawn} for name, provider in models.items()}
        for name in models:
            values = [v[0] for v in scores[name].values()]
            ci = bootstrap_ci(scores[name], seed=seed, n_resamples=RESAMPLES)
            cover_boot[name] += ci.low <= 100 * truth[name] <= ci.high
            low, high = wilson_interval(int(sum(values) / 100), len(values))
            cover_wilson[name] += low <= truth[name] <= high
        ranking = rank_models(scores, paired=True, seed=seed, n_resamples=RESAMPLES)
        measured = {row.model: row.score.estimate for row in ranking.models}
        taus.append(kendall_tau_b([measured[n] for n in models], [truth[n] for n in models]))
        for row in ranking.models:
            cover_rank[row.model] += row.rank_low <= true_rank[row.model] <= row.rank_high
            widths.append(row.rank_high - row.rank_low + 1)
        groups.append(len(ranking.groups))
    return {
        "rounds": rounds, "tau_mean": float(np.mean(taus)),
        "tau_ge_09": float(np.mean([t >= 0.9 for t in taus])),
        "ci_boot": {n: c / seeds for n, c in cover_boot.items()},
        "ci_wilson": {n: c / seeds for n, c in cover_wilson.items()},
        "rank_cover": {n: c / seeds for n, c in cover_rank.items()},
        "rank_width": float(np.mean(widths)), "groups": float(np.mean(groups)),
    }


def engine_check(tasks: list[Task], seeds: int) -> tuple[int, int]:
    """Items graded through the engine and the sandbox whose outcome differs from the draw,
    and items checked (P = 0.5, 20 tasks per seed)."""
    from pytest_req2rank.execution import RunOptions, run_task
    from pytest_req2rank.sandbox import ProcessSandbox

    provider = instruments()["r2r/degraded:0.5"]
    box = ProcessSandbox()
    differ = checked = 0
    try:
        for seed in range(seeds):
            for task in draw_tasks(tasks, 20, seed):
                item = run_task(task, provider, box, RunOptions(seed=seed, sandbox_timeout_s=5))
                if item.status in ("api_error", "sandbox_error"):
                    continue
                checked += 1
                differ += (item.status == "success") != accepted(provider, task, seed)
    finally:
        box.close()
    return differ, checked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--rounds", default="10,20,40,80,160")
    parser.add_argument("--engine-check", type=int, default=0, metavar="N")
    args = parser.parse_args()
    tasks = load_humaneval()
    started = time.perf_counter()
    if args.engine_check:
        differ, checked = engine_check(tasks, args.engine_check)
        print(f"engine check: {differ} of {checked} items graded otherwise than drawn")
    names = [f"P={q}" for q in QUALITIES]
    print(f"{args.seeds} runs per round count, instruments {', '.join(names)}, paired, "
          f"{RESAMPLES} resamples")
    print("| rounds | Kendall tau (mean) | runs with tau >= 0.9 | CI95 covers P (bootstrap) "
          "| CI95 covers P (Wilson) | rank interval covers true rank | mean rank-interval "
          "width | groups |")
    print("|---:|---:|---:|---|---|---|---:|---:|")
    results = []
    for rounds in (int(r) for r in args.rounds.split(",")):
        found = study(tasks, rounds, args.seeds)
        results.append(found)

        def shares(key: str, found: dict[str, object] = found) -> str:
            values = found[key]
            assert isinstance(values, dict)
            return f"{min(values.values()):.0%}-{max(values.values()):.0%}"

        print(f"| {rounds} | {found['tau_mean']:.3f} | {found['tau_ge_09']:.0%} | "
              f"{shares('ci_boot')} | {shares('ci_wilson')} | {shares('rank_cover')} | "
              f"{found['rank_width']:.2f} | {found['groups']:.2f} |")
    mean_ok = next((r["rounds"] for r in results if float(str(r["tau_mean"])) >= 0.9), None)
    share_ok = next((r["rounds"] for r in results if float(str(r["tau_ge_09"])) >= 0.8), None)
    print(f"least rounds for a mean tau >= 0.9 between models 0.1 apart: {mean_ok or 'beyond'}"
          f"; for tau >= 0.9 in 80 % of runs: {share_ok or 'beyond'} "
          f"(of {args.rounds}); {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
