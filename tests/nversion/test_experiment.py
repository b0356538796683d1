"""Invariants of the experiment on real versions: three HumanEval problems, five correct,
algorithmically different versions each."""

from __future__ import annotations

from functools import cache

import pytest

from pytest_req2rank.execution import ReferenceCache
from pytest_req2rank.models import Task
from pytest_req2rank.nversion import Output, TaskExperiment, aggregate, run_experiment
from pytest_req2rank.nversion._faults import ALGORITHM_LEVEL, CODE_LEVEL
from pytest_req2rank.nversion._outputs import same_output, task_inputs, version_outputs
from pytest_req2rank.nversion._voting import vote_task
from pytest_req2rank.sandbox import Sandbox
from pytest_req2rank.suites import load_humaneval

SEED = 11
VERSIONS = {
    "HumanEval/2": [
        "def truncate_number(number: float) -> float:\n    return number % 1.0\n",
        "def truncate_number(number: float) -> float:\n    return number - int(number)\n",
        ("import math\n\ndef truncate_number(number: float) -> float:\n"
        "    return math.modf(number)[0]\n"),
        ("def truncate_number(number: float) -> float:\n"  # exact decimal digits: 0.33, not ...07
        "    whole, _, digits = repr(number).partition('.')\n"
        "    return float('0.' + (digits or '0'))\n"),
        ("def truncate_number(number: float) -> float:\n    whole = number\n"
        "    while whole >= 1.0:\n        whole -= 1.0\n    return whole\n"),
    ],
    "HumanEval/13": [
        ("def greatest_common_divisor(a: int, b: int) -> int:\n"
        "    while b:\n        a, b = b, a % b\n    return a\n"),
        ("def greatest_common_divisor(a: int, b: int) -> int:\n"
        "    return a if b == 0 else greatest_common_divisor(b, a % b)\n"),
        ("import math\n\ndef greatest_common_divisor(a: int, b: int) -> int:\n"
        "    return math.gcd(a, b)\n"),
        ("def greatest_common_divisor(a: int, b: int) -> int:\n"
        "    for d in range(min(a, b), 0, -1):\n"
        "        if a % d == 0 and b % d == 0:\n            return d\n    return max(a, b)\n"),
        ("def greatest_common_divisor(a: int, b: int) -> int:\n"
        "    while a != b:\n        if a > b:\n            a -= b\n        else:\n"
        "            b -= a\n    return a\n"),
    ],
    "HumanEval/34": [
        "def unique(l: list):\n    return sorted(set(l))\n",
        ("def unique(l: list):\n    out = []\n    for x in sorted(l):\n"
        "        if not out or out[-1] != x:\n            out.append(x)\n    return out\n"),
        "def unique(l: list):\n    return sorted(dict.fromkeys(l))\n",
        ("def unique(l: list):\n    seen = {}\n    for x in l:\n        seen[x] = True\n"
        "    keys = list(seen)\n    for i in range(len(keys)):\n"
        "        for j in range(len(keys) - 1 - i):\n"
        "            if keys[j] > keys[j + 1]:\n"
        "                keys[j], keys[j + 1] = keys[j + 1], keys[j]\n    return keys\n"),
        ("import heapq\n\ndef unique(l: list):\n    heap = list(l)\n    heapq.heapify(heap)\n"
        "    out = []\n    while heap:\n        x = heapq.heappop(heap)\n"
        "        if not out or out[-1] != x:\n            out.append(x)\n    return out\n"),
    ],
}


@cache
def tasks() -> dict[str, Task]:
    return {t.task_id: t for t in load_humaneval() if t.task_id in VERSIONS}


def experiments(sandbox: Sandbox, cache_: ReferenceCache, seed: int) -> list[TaskExperiment]:
    return [run_experiment(tasks()[task_id], versions, sandbox, seed=seed, patterns=CODE_LEVEL,
                           cache=cache_) for task_id, versions in VERSIONS.items()]


@pytest.fixture(scope="module")
def seeded(nv_sandbox: Sandbox, nv_cache: ReferenceCache) -> list[TaskExperiment]:
    return experiments(nv_sandbox, nv_cache, SEED)


def test_the_versions_are_correct_and_agree(seeded: list[TaskExperiment]) -> None:
    for experiment in seeded:
        assert experiment.failing_before == 0 and experiment.reference_raised == 0
        assert experiment.inputs >= 1


def test_code_level_invariants(seeded: list[TaskExperiment]) -> None:
    metrics = {m.pattern: m for m in aggregate(seeded)}
    assert list(metrics) == [p.name for p in CODE_LEVEL]
    assert metrics["Pat-CL0"].fr == 0 and metrics["Pat-CL0"].ccr == 1
    assert metrics["Pat-CL0"].tpr == 1 and metrics["Pat-CL0"].afvr == 0
    assert metrics["Pat-CL1"].fr == 0 and metrics["Pat-CL2"].fr == 0  # 4 and 3 of 5 correct
    assert metrics["Pat-CL1"].mcr == 1 and metrics["Pat-CL2"].mcr == 1
    assert metrics["Pat-CL4"].fr > 0
    for m in metrics.values():
        assert m.ccr <= m.mcr and m.tasks == 3


def test_every_picked_version_is_faulty(seeded: list[TaskExperiment]) -> None:
    for experiment in seeded:
        for run in experiment.runs:
            assert not run.injection.missing
            assert {f.version for f in run.injection.faults} == set(run.injection.picked)
            for version in run.versions:
                assert (version.status == "success") == (not version.faults)
            assert run.outcome.failing == len(run.injection.picked)
        last = experiment.runs[-1]
        assert last.pattern == "Pat-CL4" and len(last.injection.picked) == 5
        assert last.outcome.failing == 5 and max(last.outcome.pass_rates) < 1


def test_the_same_seed_reproduces_every_number(seeded: list[TaskExperiment], nv_sandbox: Sandbox,
                                               nv_cache: ReferenceCache) -> None:
    again = experiments(nv_sandbox, nv_cache, SEED)
    assert again == seeded
    assert aggregate(again) == aggregate(seeded)


def test_floats_are_voted_within_the_tolerance(nv_sandbox: Sandbox,
                                               nv_cache: ReferenceCache) -> None:
    task = tasks()["HumanEval/2"]
    inputs = task_inputs(task, nv_sandbox, timeout_s=3.0, cache=nv_cache)
    modulo = version_outputs(task, VERSIONS["HumanEval/2"][0], inputs, nv_sandbox,
                             timeout_s=3.0, cache=nv_cache)
    decimal = version_outputs(task, VERSIONS["HumanEval/2"][3], inputs, nv_sandbox,
                              timeout_s=3.0, cache=nv_cache)
    assert modulo != decimal  # 0.33000000000000007 and 0.33: equal only within the tolerance
    assert all(o.kind == "value" for o in modulo + decimal)
    assert all(same_output(a, b) for a, b in zip(modulo, decimal, strict=True))
    assert vote_task(task.task_id, [modulo, decimal, modulo], inputs.reference).complete_consensus


def test_failures_are_outputs_of_their_own(nv_sandbox: Sandbox, nv_cache: ReferenceCache) -> None:
    task = tasks()["HumanEval/13"]
    inputs = task_inputs(task, nv_sandbox, timeout_s=3.0, cache=nv_cache)
    raising = version_outputs(task, "def greatest_common_divisor(a, b):\n    return 1 // (a - 3)\n",
                              inputs, nv_sandbox, timeout_s=1.0, cache=nv_cache)
    assert raising[0].kind == "raised" and "ZeroDivisionError" in raising[0].detail
    assert raising[1] == Output(kind="value", value=0)
    looping = version_outputs(task, "def greatest_common_divisor(a, b):\n    while True:\n"
                              "        pass\n", inputs, nv_sandbox, timeout_s=1.0, cache=nv_cache)
    assert all(o.kind == "failed" for o in looping)
    assert "timeout" in looping[0].detail


class WrongByOne:
    """A common-mode failure the tests detect: every result of the version is off by one."""

    name = "result-plus-one"

    def __call__(self, code: str) -> str | None:
        return code + ("\n_r2r_inner = greatest_common_divisor\n\n"
                       "def greatest_common_divisor(a, b):\n"
                       "    return _r2r_inner(a, b) + 1\n")


def test_a_detected_common_mode_failure_defeats_the_vote(nv_sandbox: Sandbox,
                                                         nv_cache: ReferenceCache) -> None:
    task = tasks()["HumanEval/13"]
    experiment = run_experiment(task, VERSIONS["HumanEval/13"], nv_sandbox, seed=SEED,
                                patterns=ALGORITHM_LEVEL[:2], common_mode=[WrongByOne()],
                                cache=nv_cache)
    before, after = (run.outcome for run in experiment.runs)
    assert before.vote.correct and not after.vote.correct
    # A wrong consensus, not a split: the common mode (the recursive version, whose calls
    # reach the wrapper too, is off by more than one and agrees with none).
    assert not after.vote.no_consensus and after.vote.largest_agreeing == 4
    assert after.failing == 5 and after.failing_before == 0
    assert {m.pattern: m.fr for m in aggregate([experiment])} == {"Pat-AL0": 0, "Pat-AL1": 1}
