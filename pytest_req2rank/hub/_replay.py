"""Replaying a submitted run with the engine: a ``pytest`` run of this package in a clean
directory, from the run's seed, with the hub's own sandbox and model access."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..models import STATIC_JUDGE
from ..options import OPTIONS, spelling

REPLAY_TIMEOUT_S = 3600
_SELECTABLE = re.compile(r"[\w./:+\-]+")
"""Item ids that pytest's ``-k`` can name exactly (as ``test_task[ID]``): its expressions'
names take these characters."""


def why_not_replayable(run: Mapping[str, Any]) -> str | None:
    """Why the run's seed cannot plan its requirements again on the hub; None when it can."""
    settings = run.get("settings") or {}
    if settings.get("generator"):
        return "its requirements were elaborated by a generator model, so its seed does not " \
               "plan them again"
    if settings.get("templates"):
        return "it drew its requirements from a template directory of its own"
    if settings.get("nversion"):
        return "N-version runs are not replayed"
    if str(run.get("suite", "")).startswith("jsonl:"):
        return "it ran a suite file of its own, which the hub does not have"
    return None


def replay_arguments(run: Mapping[str, Any], model: str, results: Path) -> list[str]:
    """The pytest options that plan a replayable ``run`` again from its seed and answer it
    with ``model`` (writing the results to ``results``)."""
    settings = run.get("settings") or {}
    arguments = [
        f"--r2r-model={model}", f"--r2r-suite={run['suite']}",
        f"--r2r-seed={run['seed']}", f"--r2r-json={results}",
        f"--r2r-rounds={settings.get('rounds', 10)}",
        f"--r2r-execution-weight={settings.get('execution_weight', 0.7)}",
        f"--r2r-sandbox-timeout-ms={settings.get('sandbox_timeout_ms', 5000)}",
    ]
    for name in ("complexity", "skills", "domains"):
        if settings.get(name):
            arguments.append(f"--r2r-{name}={','.join(settings[name])}")
    if settings.get("sample"):
        arguments.append(f"--r2r-sample={settings['sample']}")
    if settings.get("weights"):
        weights = ",".join(f"{name}={100 * value:g}" for name, value in settings["weights"].items())
        arguments.append(f"--r2r-weights={weights}")
    if settings.get("judges") is not None:
        judges = [str(judge) for judge in run.get("judges") or []]
        offline = [judge for judge in judges if judge == STATIC_JUDGE]
        arguments.append(f"--r2r-judges={','.join(offline) or 'none'}")
    return arguments


def generation_arguments(run: Mapping[str, Any]) -> list[str]:
    """The options that make the replay's model calls the run's: tokens, temperature, reasoning
    effort and samples per task (never the run's API base: the hub calls models its own way)."""
    settings = run.get("settings") or {}
    arguments = []
    for name in ("max_tokens", "temperature", "reasoning_effort", "samples_per_task"):
        if settings.get(name) is not None:
            arguments.append(f"{spelling('cli', name)}={settings[name]}")
    return arguments


def selection(item_ids: Iterable[str]) -> str:
    """A ``-k`` expression that selects exactly these items."""
    return " or ".join(f"test_task[{item_id}]" for item_id in item_ids)


def selectable(item_id: str) -> bool:
    return _SELECTABLE.fullmatch(item_id) is not None


def replay_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The hub's environment (its provider keys, a fake provider's script) without the
    variables that would change the replayed run's settings or send it anywhere."""
    environ = os.environ if environ is None else environ
    settings = {spelling("env", name) for option in OPTIONS for name in option.names}
    return {key: value for key, value in environ.items()
            if key not in settings and not key.startswith("R2R_HUB")}


def run_replay(arguments: list[str], directory: Path, results: Path, *,
               select: Iterable[str] | None = None) -> dict[str, dict[str, Any]] | str:
    """Run the replay in ``directory``: its items by id, or a string saying why it did not
    finish."""
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
               "--rootdir", str(directory), *arguments]
    if select is not None:
        command += ["-k", selection(select)]
    try:
        replay = subprocess.run(command, cwd=directory, env=replay_environment(),
                                capture_output=True, text=True, timeout=REPLAY_TIMEOUT_S,
                                check=False)
    except subprocess.TimeoutExpired:
        return f"the replay took longer than {REPLAY_TIMEOUT_S} s"
    if not results.exists():
        tail = (replay.stderr.strip() or replay.stdout.strip()).splitlines()[-1:]
        return f"the replay did not finish: {' '.join(tail) or f'exit {replay.returncode}'}"
    return {item["item_id"]: item for item in json.loads(results.read_text())["items"]}
