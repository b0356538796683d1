"""Re-verification: replay a submission's requirements on the hub and compare.

The hub reruns the run's plan from its seed with the engine (a ``pytest`` run of this
package in a clean directory), answering each requirement with the response the run
submitted (the offline ``r2r/samples`` model) and grading it in the hub's own sandbox: the
requirements must be those the seed draws, and the pass ratios (and, with the offline static
judge, the scores) those the submission claims. No model is called.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from ..models import STATIC_JUDGE
from ..suites import DynamicOptions, load_suite
from ._errors import Refused
from ._submissions import RANKED_STATUSES, record_status
from ._tables import Submission

PASS_RATIO_TOLERANCE = 0.01
SCORE_TOLERANCE = 2.0
REPLAY_TIMEOUT_S = 3600


@dataclass(frozen=True)
class Reverification:
    """``verified``, ``disputed`` (``reasons`` say which items differ and how) or
    ``unverifiable`` (the run cannot be replayed offline: ``reasons`` say why)."""

    status: str
    reasons: list[str]
    compared: int


def replay_arguments(run: dict[str, Any], samples: Path, results: Path) -> list[str] | str:
    """The pytest options that replay ``run`` from its seed with the submitted answers;
    a string says why the run cannot be replayed offline."""
    settings = run.get("settings") or {}
    if settings.get("generator"):
        return "its requirements were elaborated by a generator model, which the hub does not call"
    if settings.get("templates"):
        return "it drew its requirements from a template directory of its own"
    if settings.get("nversion"):
        return "N-version runs are not replayed"
    if str(run.get("suite", "")).startswith("jsonl:"):
        return "it ran a suite file of its own, which the hub does not have"
    judges = [str(judge) for judge in run.get("judges") or []]
    arguments = [
        f"--r2r-model=r2r/samples:{samples}", f"--r2r-suite={run['suite']}",
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
        offline = [judge for judge in judges if judge == STATIC_JUDGE]
        arguments.append(f"--r2r-judges={','.join(offline) or 'none'}")
    return arguments


def reverify(document: dict[str, Any], *, sample: int | None = None, seed: int = 0,
             workdir: Path | None = None) -> Reverification:
    """Replay ``document`` (a submitted results JSON) and compare ``sample`` of its items
    (all when None; chosen at random by the hub with ``seed``)."""
    run, items = document["run"], document["items"]
    with tempfile.TemporaryDirectory(prefix="r2r-reverify-", dir=workdir) as directory:
        base = Path(directory)
        samples, results = base / "samples.jsonl", base / "replay.json"
        arguments = replay_arguments(run, samples, results)
        if isinstance(arguments, str):
            return Reverification("unverifiable", [arguments], 0)
        ordered = sorted(items, key=lambda item: (item["task_id"], item.get("sample") or 0))
        answered = {item["task_id"] for item in items}
        # A requirement the seed draws but the run left out gets an empty answer: it is
        # replayed, and reported as left out.
        missing = [task_id for task_id in _planned_task_ids(run) if task_id not in answered]
        samples.write_text("".join(json.dumps({"task_id": item["task_id"],
                                               "completion": item["response"]}) + "\n"
                                   for item in ordered) +
                           "".join(json.dumps({"task_id": task_id, "completion": ""}) + "\n"
                                   for task_id in missing), encoding="utf-8")
        env = {key: value for key, value in os.environ.items() if not key.startswith("R2R_")}
        replay = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--rootdir", directory,
             *arguments],
            cwd=directory, env=env, capture_output=True, text=True, timeout=REPLAY_TIMEOUT_S,
            check=False)
        if not results.exists():
            tail = (replay.stderr.strip() or replay.stdout.strip()).splitlines()[-1:]
            return Reverification("unverifiable", [f"the replay did not finish: {tail}"], 0)
        replayed = {item["item_id"]: item for item in json.loads(results.read_text())["items"]}
    chosen = list(items)
    if sample is not None and sample < len(chosen):
        chosen = random.Random(seed).sample(chosen, sample)
    static = set(run.get("judges") or []) <= {STATIC_JUDGE}
    reasons = []
    left_out = sorted(set(replayed) - {item["item_id"] for item in items})
    if left_out:
        reasons.append(f"the run left out {len(left_out)} item(s) its seed draws: "
                       f"{', '.join(left_out[:5])}")
    for item in chosen:
        reasons += _differences(item, replayed.get(item["item_id"]), compare_scores=static)
    return Reverification("disputed" if reasons else "verified", reasons, len(chosen))


def _planned_task_ids(run: dict[str, Any]) -> list[str]:
    """The task ids the run's suite holds for its seed (the engine's own draw)."""
    settings = run.get("settings") or {}
    dynamic = DynamicOptions(rounds=settings.get("rounds", 10),
                             complexities=tuple(settings.get("complexity") or ()),
                             skills=tuple(settings.get("skills") or ()),
                             domains=tuple(settings.get("domains") or ()))
    return list(dict.fromkeys(task.task_id for task in
                              load_suite(run["suite"], seed=run["seed"], dynamic=dynamic)))


def _differences(item: dict[str, Any], again: dict[str, Any] | None, *,
                 compare_scores: bool) -> list[str]:
    name = item["item_id"]
    if again is None:
        return [f"{name}: the seed does not draw this requirement"]
    if any(item.get(key) != again.get(key) for key in ("requirement", "prompt")):
        return [f"{name}: the requirement differs from the one the seed draws"]
    found = []
    if item["status"] != again["status"]:
        found.append(f"{name}: status {item['status']}, the replay gives {again['status']}")
    if abs(item["pass_ratio"] - again["pass_ratio"]) > PASS_RATIO_TOLERANCE:
        found.append(f"{name}: pass ratio {item['pass_ratio']:.3f}, the replay gives "
                     f"{again['pass_ratio']:.3f}")
    if compare_scores and item.get("score") is not None and again.get("score") is not None \
            and abs(item["score"] - again["score"]) > SCORE_TOLERANCE:
        found.append(f"{name}: score {item['score']}, the replay gives {again['score']}")
    return found


def reverify_submission(session: Session, submission_id: int, *, sample: int | None = None
                        ) -> Reverification:
    """Re-verify a kept submission and record the outcome: ``verified`` stays ranked,
    ``disputed`` leaves the ranking; ``unverifiable`` changes nothing but the history."""
    submission = session.get(Submission, submission_id)
    if submission is None:
        raise Refused(404, "not_found", f"no submission {submission_id}")
    outcome = reverify(submission.document, sample=sample, seed=submission_id)
    summary = (f"re-verified {outcome.compared} items by replaying them from the run's seed"
               if outcome.status != "unverifiable" else "not re-verifiable")
    reason = f"{summary}: " + ("; ".join(outcome.reasons[:10]) or "all matched")
    if outcome.status == "unverifiable" or (
            outcome.status == "verified" and submission.status not in RANKED_STATUSES):
        record_status(session, submission, submission.status, reason, "reverify")
    else:
        record_status(session, submission, outcome.status, reason, "reverify")
    session.commit()
    return outcome
