"""What a re-verification replays and how it judges (no replay is run here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_req2rank.hub import HubConfig
from pytest_req2rank.hub._replay import (
    generation_arguments,
    replay_arguments,
    replay_environment,
    selectable,
    selection,
    why_not_replayable,
)
from pytest_req2rank.hub._reverify import Replay, Reverification, _compare_sample, reverify

RUN = {"id": "r", "seed": 3, "model": "acme/coder", "suite": "dynamic", "judges": ["r2r/static"],
       "settings": {"rounds": 4, "complexity": ["C2"], "max_tokens": 512, "temperature": 0.2,
                    "samples_per_task": 2, "api_base": "http://cheater.example", "judges": None}}


def test_the_replay_plans_the_runs_requirements_and_asks_as_the_run_did() -> None:
    assert why_not_replayable(RUN) is None
    arguments = replay_arguments(RUN, "acme/coder", Path("out.json"))
    assert {"--r2r-model=acme/coder", "--r2r-suite=dynamic", "--r2r-seed=3", "--r2r-rounds=4",
            "--r2r-complexity=C2"} <= set(arguments)
    assert generation_arguments(RUN) == ["--r2r-max-tokens=512", "--r2r-temperature=0.2",
                                         "--r2r-samples-per-task=2"]
    assert not any("cheater" in argument for argument in [*arguments, *generation_arguments(RUN)])
    reasoning = {**RUN, "settings": {**RUN["settings"], "reasoning_effort": "high"}}
    assert "--r2r-reasoning-effort=high" in generation_arguments(reasoning)


@pytest.mark.parametrize(("settings", "suite", "why"), [
    ({"generator": "gpt-4o"}, "dynamic", "generator model"),
    ({"templates": "mine/"}, "dynamic", "template directory"),
    ({"nversion": 5}, "dynamic", "N-version"),
    ({}, "jsonl:my.jsonl", "suite file of its own"),
])
def test_runs_the_seed_cannot_plan_again_are_named(settings: dict, suite: str, why: str) -> None:
    reason = why_not_replayable({**RUN, "suite": suite, "settings": settings})
    assert isinstance(reason, str) and why in reason


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


@pytest.mark.parametrize(("answers", "model", "verdict"), [
    ("verified", "verified", "verified"),
    ("verified", "disputed", "disputed"),
    ("disputed", "unverifiable", "disputed"),
    ("verified", "unverifiable", "unverifiable"),
])
def test_both_replays_must_match_for_a_verified_run(answers: str, model: str, verdict: str) -> None:
    outcome = Reverification(Replay("answers", answers, []), Replay("model", model, []))  # type: ignore[arg-type]
    assert outcome.status == verdict


@pytest.mark.parametrize(("model", "allowed", "why"), [
    ("r2r/samples:/etc/passwd", "*", "answered from a samples file"),
    ("openai/gpt-4o", "anthropic/*,fake/*", "this hub does not call openai/gpt-4o"),
])
def test_models_the_hub_does_not_ask_are_unverifiable(model: str, allowed: str, why: str,
                                                      tmp_path: Path) -> None:
    document = {"run": {**RUN, "model": model, "suite": "jsonl:x.jsonl"}, "items": []}
    outcome = reverify(document, HubConfig(database_url="sqlite://", reverify_models=allowed),
                       workdir=tmp_path)
    assert outcome.model.status == "unverifiable" and why in outcome.model.reasons[0]
    assert outcome.status == "unverifiable"
