"""What a re-verification replays and how it judges (no replay is run here)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_req2rank.hub import HubConfig
from pytest_req2rank.hub._replay import (
    ReplayRefused,
    replay_environment,
    replay_options,
    selectable,
    selection,
    why_not_replayable,
)
from pytest_req2rank.hub._reverify import Replay, Reverification, _compare_sample, reverify

RUN = {"id": "r", "seed": 3, "model": "acme/coder", "suite": "dynamic", "judges": ["r2r/static"],
       "settings": {"rounds": 4, "complexity": ["C2"], "max_tokens": 512, "temperature": 0.2,
                    "samples_per_task": 2, "api_base": "http://cheater.example", "judges": None}}
CONFIG = HubConfig(database_url="sqlite://")


def test_the_replay_plans_the_runs_requirements_and_asks_as_the_run_did() -> None:
    assert why_not_replayable(RUN, CONFIG) is None
    answers = replay_options(RUN, "acme/coder", Path("out.json"), CONFIG)
    assert {"--r2r-model=acme/coder", "--r2r-suite=dynamic", "--r2r-seed=3", "--r2r-rounds=4",
            "--r2r-complexity=C2", "--r2r-samples-per-task=2"} <= set(answers.arguments)
    assert answers.settings.samples_per_task == 2  # both replays plan the run's samples
    asked = replay_options(RUN, "acme/coder", Path("out.json"), CONFIG, ask_model=True)
    assert set(asked.arguments) - set(answers.arguments) == {
        "--r2r-max-tokens=512", "--r2r-temperature=0.2"}
    assert asked.clamped == [] and asked.settings.max_tokens == 512
    assert not any("cheater" in argument for argument in asked.arguments)
    reasoning = {**RUN, "settings": {**RUN["settings"], "reasoning_effort": "high"}}
    effort = replay_options(reasoning, "acme/coder", Path("out.json"), CONFIG, ask_model=True)
    assert "--r2r-reasoning-effort=high" in effort.arguments
    assert effort.settings.reasoning_effort == "high"
    assert not any("reasoning" in argument for argument in
                   replay_options(reasoning, "acme/coder", Path("out.json"), CONFIG).arguments)


@pytest.mark.parametrize(("settings", "suite", "why"), [
    ({"generator": "gpt-4o"}, "dynamic", "generator model"),
    ({"templates": "mine/"}, "dynamic", "template directory"),
    ({"nversion": 5}, "dynamic", "N-version"),
    ({}, "jsonl:my.jsonl", "suite file of its own"),
    ({}, "mbpp", "suite 'mbpp', which the hub does not have"),
    ({"rounds": 3000}, "dynamic", "3000 rounds are more than the 1000 this hub replays"),
    ({"samples_per_task": 200}, "humaneval", "200 samples per task are more than the 20"),
])
def test_runs_the_seed_cannot_plan_again_are_named(settings: dict, suite: str, why: str) -> None:
    reason = why_not_replayable({**RUN, "suite": suite, "settings": settings}, CONFIG)
    assert isinstance(reason, str) and why in reason


def test_the_hubs_limits_lower_what_a_run_asks_of_the_model() -> None:
    run = {**RUN, "settings": {**RUN["settings"], "max_tokens": 2_000_000_000,
                               "temperature": 2.0, "sandbox_timeout_ms": 3_600_000}}
    asked = replay_options(run, "acme/coder", Path("out.json"), CONFIG, ask_model=True)
    assert {"--r2r-max-tokens=32768", "--r2r-temperature=1",
            "--r2r-sandbox-timeout-ms=30000"} <= set(asked.arguments)
    assert asked.clamped == [
        "sandbox_timeout_ms 3.6e+06 -> 30000 (R2R_HUB_REPLAY_MAX_SANDBOX_TIMEOUT_MS)",
        "max_tokens 2e+09 -> 32768 (R2R_HUB_REPLAY_MAX_TOKENS)",
        "temperature 2 -> 1 (R2R_HUB_REPLAY_MAX_TEMPERATURE)"]


@pytest.mark.parametrize(("settings", "why"), [
    ({"weights": {"functionality": "heavy"}}, "settings.weights: "),
    ({"weights": ["functionality", 30]}, "settings.weights: "),
    ({"weights": {"charm": 1.0}}, "--r2r-weights: "),
    ({"rounds": "many"}, "settings.rounds: 'many' is not a number"),
    ({"complexity": ["C9"]}, "--r2r-complexity: unknown complexity 'C9'"),
    ({"temperature": -1}, "--r2r-temperature: "),
])
def test_settings_the_engine_refuses_are_the_submissions_making(settings: dict, why: str) -> None:
    with pytest.raises(ReplayRefused, match="^" + re.escape(why)):
        replay_options({**RUN, "settings": settings}, "acme/coder", Path("out.json"), CONFIG,
                       ask_model=True)


def test_the_replay_keeps_the_hubs_model_access_and_drops_run_settings() -> None:
    environment = replay_environment({
        "OPENAI_API_KEY": "sk", "R2R_FAKE_SCRIPT": "/s.json", "PATH": "/bin",
        "R2R_MODEL": "other", "R2R_SUITE": "humaneval", "R2R_JSON": "/x", "R2R_DB": "/db",
        "R2R_HUB_DATABASE_URL": "sqlite://", "R2R_HUB_TOKEN": "t"})
    assert environment == {"OPENAI_API_KEY": "sk", "R2R_FAKE_SCRIPT": "/s.json", "PATH": "/bin"}


def test_items_are_selected_by_their_exact_names() -> None:
    assert selection(["humaneval/HumanEval_1", "dynamic/r3-a+b-C1-x"]) == \
        "test_task[humaneval/HumanEval_1] or test_task[dynamic/r3-a+b-C1-x]"
    assert selectable("dynamic/r3-di-container+flex-row-layout-C3-developer-tools")
    assert not selectable("jsonl/task (1)") and not selectable("x] or test_task[y")
    assert not selectable("humaneval/HumanEval_0@x)or(test_task")  # submitted: not an -k name


def _rows(claimed: list[float], replayed: list[float]) -> list[dict]:
    return [{"item_id": f"dynamic/R{i}", "claimed_pass_ratio": a, "replayed_pass_ratio": b,
             "claimed_score": 100 * a, "replayed_score": 100 * b}
            for i, (a, b) in enumerate(zip(claimed, replayed, strict=True))]


def test_the_sample_is_judged_on_its_means_within_the_hubs_tolerances() -> None:
    config = HubConfig(database_url="sqlite://", reverify_pass_tolerance=0.15,
                       reverify_score_tolerance=10.0)
    # A model that is not deterministic: items move both ways, the mean barely.
    assert _compare_sample(_rows([1, 0, 0.5, 1], [0.75, 0.25, 0.5, 1]), config, static=True) == \
        ("verified", [])
    verdict, reasons = _compare_sample(_rows([1, 1, 1, 1], [0.5, 1, 0.25, 1]), config, static=False)
    assert verdict == "disputed"
    assert reasons[0] == "mean pass ratio over 4 items: claimed 1.000, the model gives 0.688 " \
                         "(tolerance 0.15)"
    assert reasons[1].startswith("dynamic/R2: pass ratio claimed 1.000, replayed 0.250")
    rows = _rows([0.5, 0.5], [0.5, 0.5])
    rows[0]["claimed_score"] = 95.0  # the pass ratios agree, the static scores do not
    assert _compare_sample(rows, config, static=True)[0] == "disputed"
    assert _compare_sample(rows, config, static=False)[0] == "verified"


@pytest.mark.parametrize(("answers", "model", "verdict", "retry"), [
    (Replay("answers", "verified", []), Replay("model", "verified", []), "verified", False),
    (Replay("answers", "verified", []), Replay("model", "disputed", []), "disputed", False),
    (Replay("answers", "disputed", []), Replay("model", "unverifiable", [], retry=True),
     "disputed", False),
    (Replay("answers", "verified", []), Replay("model", "unverifiable", []), "unverifiable",
     False),
    (Replay("answers", "verified", []), Replay("model", "unverifiable", [], retry=True),
     "unverifiable", True),
    (Replay("answers", "unverifiable", []), Replay("model", "unverifiable", [], retry=True),
     "unverifiable", False),
])
def test_both_replays_must_match_for_a_verified_run(answers: Replay, model: Replay, verdict: str,
                                                     retry: bool) -> None:
    outcome = Reverification(answers, model)
    assert (outcome.status, outcome.retry) == (verdict, retry)


@pytest.mark.parametrize(("model", "config", "why"), [
    ("r2r/samples:/etc/passwd", {}, "'r2r/samples:/etc/passwd': names a file; the hub never reads a path"),
    (" r2r/samples:../x", {}, "U+0020 SPACE at position 0"),
    ("oobabooga/http://127.0.0.1:9/v1", {"reverify_providers": "hosted,oobabooga"},
     ": carries a URL"),
    ("openai/gpt-4o", {"reverify_models": "anthropic/*,fake/*"},
     "this hub does not call openai/gpt-4o (its R2R_HUB_REVERIFY_MODELS: anthropic/*,fake/*)"),
    ("ollama/llama3", {}, ("this hub does not call ollama models (its R2R_HUB_REVERIFY_PROVIDERS: "
     "hosted)")),
    ("mistral/codestral-latest", {"reverify_providers": "openai"},
     "this hub does not call mistral models"),
])
def test_models_the_hub_does_not_ask_are_unverifiable(model: str, config: dict, why: str,
                                                      tmp_path: Path) -> None:
    document = {"run": {**RUN, "model": model, "suite": "jsonl:x.jsonl"}, "items": []}
    outcome = reverify(document, HubConfig(database_url="sqlite://", **config), workdir=tmp_path)
    assert outcome.model.status == "unverifiable" and why in outcome.model.reasons[0]
    assert (outcome.status, outcome.retry) == ("unverifiable", False)
