"""Replaying a submitted run with the engine: a ``pytest`` run of this package in a clean
directory, from the run's seed, with the hub's own sandbox and model access, within the
hub's limits (:class:`~._config.HubConfig`'s ``replay_*`` settings)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from ..errors import Req2RankError
from ..models import DEFAULT_EXECUTION_WEIGHT, STATIC_JUDGE, ItemId
from ..options import OPTIONS, spelling
from ..settings import Settings, SettingsError, resolve_settings
from ._config import HubConfig
from ._model_policy import llm_judges, why_not_called

log = logging.getLogger("req2rank.hub")

REPLAYED_SUITES = ("dynamic", "humaneval")
"""The suites the hub has: their requirements come from the seed (or the package)."""


class ReplayRefused(Req2RankError):
    """The run's settings cannot be replayed (the submission's making): a value of the wrong
    kind, or one the engine refuses. The message names the setting."""


@dataclass(frozen=True)
class ReplayOptions:
    """A replay's ``pytest`` options, the settings they resolve to, and the run's values the
    hub's limits lowered (``"max_tokens 2000000000 -> 8192"``)."""

    arguments: list[str]
    settings: Settings
    clamped: list[str]


def why_not_planned(run: Mapping[str, Any]) -> str | None:
    """Why the run's seed cannot plan its requirements again on any hub; None when it can."""
    settings = run.get("settings") or {}
    if not isinstance(settings, Mapping):
        return "its settings are not an object"
    if settings.get("generator"):
        return "its requirements were elaborated by a generator model, so its seed does not " \
               "plan them again"
    if settings.get("templates"):
        return "it drew its requirements from a template directory of its own"
    if settings.get("nversion"):
        return "N-version runs are not replayed"
    suite = str(run.get("suite", ""))
    if suite.startswith("jsonl:"):
        return "it ran a suite file of its own, which the hub does not have"
    if suite not in REPLAYED_SUITES:
        return f"it ran suite {suite[:80]!a}, which the hub does not have"
    return None


def why_not_replayable(run: Mapping[str, Any], config: HubConfig) -> str | None:
    """Why this hub does not replay the run's requirements: :func:`why_not_planned`, or more
    requirements or samples than the hub's limits. A replay that planned fewer would leave
    the rest unchecked, and a forger would put invented items there."""
    reason = why_not_planned(run)
    if reason is not None:
        return reason
    settings = run.get("settings") or {}
    rounds, samples = settings.get("rounds"), settings.get("samples_per_task")
    if run.get("suite") == "dynamic" and _number(rounds) and rounds > config.replay_max_rounds:
        return (f"its {rounds} rounds are more than the {config.replay_max_rounds} this hub "
                "replays (R2R_HUB_REPLAY_MAX_ROUNDS)")
    if _number(samples) and samples > config.replay_max_samples:
        return (f"its {samples} samples per task are more than the {config.replay_max_samples} "
                "this hub replays (R2R_HUB_REPLAY_MAX_SAMPLES)")
    return None


def why_not_judged(run: Mapping[str, Any], config: HubConfig, *,
                   resolve: Callable[[str], str] | None = None) -> str | None:
    """Why this hub cannot check the run's scores: an LLM judge of its panel is a model the
    hub does not call (a score the hub cannot judge again is not ranked on); None when it
    can."""
    for judge in llm_judges(run.get("judges") or []):
        reason = why_not_called(judge, config, resolve=resolve)
        if reason is not None:
            return (f"its scores come from the LLM judge {judge[:120]!a}, which this hub "
                    f"cannot ask again ({reason}), so they cannot be verified")
    return None


def why_unverified(run: Mapping[str, Any], config: HubConfig) -> str | None:
    """Why a submitted run cannot be verified by this hub, known when it arrives (its
    requirements cannot be planned again, or its model or one of its LLM judges is one the
    hub does not call); None when the hub will try."""
    return why_not_replayable(run, config) or why_not_called(str(run.get("model")), config) \
        or why_not_judged(run, config)


def _number(value: object) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def replay_options(run: Mapping[str, Any], model: str, results: Path, config: HubConfig, *,
                   ask_model: bool = False, judged: bool = False) -> ReplayOptions:
    """The options that plan a replayable ``run`` again from its seed and samples per task
    and answer it with ``model`` (results to ``results``), judged by the offline static
    judge alone or, with ``judged``, by the run's whole panel; with ``ask_model``, also the
    run's max tokens and temperature, each within the hub's limits, and its reasoning effort
    (never the run's API base: the hub calls models its own way). Checked with the engine's
    own settings; :class:`ReplayRefused` when a value cannot be replayed."""
    settings = run.get("settings") or {}
    values: dict[str, str] = {"model": model, "suite": str(run.get("suite")),
                              "seed": _text("seed", run.get("seed")), "json": str(results)}
    clamped: list[str] = []

    def limited(name: str, default: float, limit: float, variable: str) -> None:
        given = settings.get(name, default)
        if given is None:
            given = default
        if not _number(given):
            raise ReplayRefused(f"settings.{name}: {given!r} is not a number")
        if given > limit:
            clamped.append(f"{name} {given:g} -> {limit:g} ({variable})")
        values[name] = _text(name, min(given, limit))

    limited("rounds", 10, config.replay_max_rounds, "R2R_HUB_REPLAY_MAX_ROUNDS")
    limited("sandbox_timeout_ms", 5000, config.replay_max_sandbox_timeout_ms,
            "R2R_HUB_REPLAY_MAX_SANDBOX_TIMEOUT_MS")
    values["execution_weight"] = _text("execution_weight",
                                       settings.get("execution_weight", DEFAULT_EXECUTION_WEIGHT))
    for name in ("complexity", "skills", "domains"):
        if settings.get(name):
            values[name] = _joined(name, settings[name])
    if settings.get("sample"):
        values["sample"] = _text("sample", settings["sample"])
    if settings.get("weights"):
        weights = settings["weights"]
        if not isinstance(weights, Mapping) or not all(_number(v) for v in weights.values()):
            raise ReplayRefused(f"settings.weights: {ascii(weights)[:120]} is not a mapping of "
                                "dimensions to numbers")
        values["weights"] = ",".join(f"{name}={100 * value:g}" for name, value in weights.items())
    if settings.get("judges") is not None:
        judges = [str(judge) for judge in run.get("judges") or []]
        kept = judges if judged else [judge for judge in judges if judge == STATIC_JUDGE]
        values["judges"] = ",".join(kept) or "none"
    if settings.get("samples_per_task") is not None:
        limited("samples_per_task", 1, config.replay_max_samples, "R2R_HUB_REPLAY_MAX_SAMPLES")
    if ask_model:
        if settings.get("max_tokens") is not None:
            limited("max_tokens", 0, config.replay_max_tokens, "R2R_HUB_REPLAY_MAX_TOKENS")
        if settings.get("temperature") is not None:
            limited("temperature", 0.0, config.replay_max_temperature,
                    "R2R_HUB_REPLAY_MAX_TEMPERATURE")
        if settings.get("reasoning_effort") is not None:
            values["reasoning_effort"] = str(settings["reasoning_effort"])
    try:
        resolved = resolve_settings(lambda name: values.get(name), {}, lambda _name: None,
                                    deprecated=lambda _message: None)
    except SettingsError as exc:
        raise ReplayRefused(str(exc)) from None
    arguments = [f"{spelling('cli', name)}={value}" for name, value in values.items()]
    if judged and settings.get("exclude_self_judging") is True:
        arguments.append(spelling("cli", "exclude_self_judging"))
    return ReplayOptions(arguments, resolved, clamped)


def _text(name: str, value: object) -> str:
    if not _number(value):
        raise ReplayRefused(f"settings.{name}: {ascii(value)[:80]} is not a number")
    return f"{value:g}" if isinstance(value, float) else str(value)


def _joined(name: str, value: object) -> str:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ReplayRefused(f"settings.{name}: {ascii(value)[:80]} is not a list of names")
    return ",".join(value)


def selection(item_ids: Iterable[str]) -> str:
    """A ``-k`` expression that selects exactly these items."""
    return " or ".join(f"test_task[{item_id}]" for item_id in item_ids)


def selectable(item_id: str) -> bool:
    """Whether pytest's ``-k`` can name ``item_id`` exactly (as ``test_task[ID]``): an item
    id's characters are all ones its expressions' names take. A model part (``@MODEL``, any
    characters but whitespace and brackets) is not: the hub replays runs of one model, whose
    ids carry none, and a submitted id that does is the submitter's text."""
    parsed = ItemId.try_parse(item_id)
    return parsed is not None and parsed.model is None


def replay_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The hub's environment (its provider keys, a fake provider's script) without the
    variables that would change the replayed run's settings or send it anywhere."""
    environ = os.environ if environ is None else environ
    settings = {spelling("env", name) for option in OPTIONS for name in option.names}
    return {key: value for key, value in environ.items()
            if key not in settings and not key.startswith("R2R_HUB")}


def run_replay(arguments: list[str], directory: Path, results: Path, *, timeout_s: float,
               select: Iterable[str] | None = None) -> dict[str, dict[str, Any]] | str:
    """Run the replay in ``directory``: its items by id, or a string saying why it did not
    finish, in the hub's own words (what the replay printed, which may quote a provider's
    answer, goes to the hub's log only)."""
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
               "--rootdir", str(directory), *arguments]
    if select is not None:
        command += ["-k", selection(select)]
    try:
        replay = subprocess.run(command, cwd=directory, env=replay_environment(),
                                capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        return f"the replay took longer than this hub's {timeout_s:g} s (R2R_HUB_REPLAY_TIMEOUT)"
    if not results.exists():
        tail = (replay.stderr.strip() or replay.stdout.strip()).splitlines()[-3:]
        log.warning("a replay did not finish (exit %s): %s", replay.returncode, " | ".join(tail))
        return f"the replay stopped before writing its results (exit status {replay.returncode})"
    return {item["item_id"]: item for item in json.loads(results.read_text())["items"]}
