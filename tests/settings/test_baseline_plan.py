"""A gated run plans as its baseline did, unless the user gives a plan setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_req2rank.settings import Settings, SettingsError, plan_like_baseline, resolve_settings
from pytest_req2rank.settings._baseline import PLAN_SETTINGS

BASE = Path("base.json")


def recorded(**values: object) -> dict[str, object]:
    """A baseline's ``run.settings``: the defaults with ``values``, recorded as a run writes them."""
    given = resolve_settings({k: str(v) for k, v in values.items()}.get, {}, lambda _: None)
    return given.model_dump(mode="json", by_alias=True)


def settings(**values: str) -> Settings:
    return resolve_settings(values.get, {}, lambda _: None)


def test_unset_plan_settings_are_the_baseline_s() -> None:
    baseline = recorded(rounds=4, complexity="C1,C2", skills="security", sample=3)
    gate = plan_like_baseline(settings(model="fake/coder"), baseline, 42, BASE)
    mine = gate.settings
    assert (mine.rounds, mine.complexity, mine.skills, mine.sample, mine.seed) == (
        4, ("C1", "C2"), ("security",), 3, 42)
    assert str(mine.model) == "fake/coder"  # not a plan setting
    assert gate.reused == ("--r2r-suite=dynamic", "--r2r-sample=3", "--r2r-seed=42",
                           "--r2r-rounds=4", "--r2r-complexity=C1,C2", "--r2r-skills=security")
    assert gate.overridden == ()
    assert "rounds" not in mine.explicit  # taken, not given


def test_given_plan_settings_win_and_are_said() -> None:
    baseline = recorded(rounds=4, sample=3)
    gate = plan_like_baseline(settings(rounds="4", sample="5", seed="7"), baseline, 42, BASE)
    assert (gate.settings.rounds, gate.settings.sample, gate.settings.seed) == (4, 5, 7)
    assert gate.overridden == ("--r2r-sample=5 (baseline: 3)", "--r2r-seed=7 (baseline: 42)")
    assert gate.reused == ("--r2r-suite=dynamic",)


def test_an_nversion_baseline_makes_an_nversion_run_of_its_tasks() -> None:
    baseline = recorded(nversion=3, faults="code", sample=2)
    gate = plan_like_baseline(settings(), baseline, 5, BASE)
    mine = gate.settings
    assert (mine.nversion, mine.faults, str(mine.suite), mine.sample) == (3, ("code",),
                                                                          "humaneval", 2)
    assert "suite" not in mine.explicit  # the baseline's default suite: the library's tasks too


def test_a_samples_file_keeps_its_own_samples_per_task(tmp_path: Path) -> None:
    samples = tmp_path / "samples.jsonl"
    samples.write_text("")
    baseline = recorded(samples_per_task=3)
    gate = plan_like_baseline(settings(model=f"r2r/samples:{samples}"), baseline, 5, BASE)
    assert gate.settings.samples_per_task == 1


def test_a_missing_suite_file_is_one_line(tmp_path: Path) -> None:
    baseline = recorded(suite=f"jsonl:{tmp_path / 'gone.jsonl'}")
    with pytest.raises(SettingsError, match=r"^--r2r-baseline: base.json ran "
                       r"--r2r-suite=jsonl:.*gone.jsonl, which is not here; pass "
                       r"--r2r-suite=PATH to the same suite \(or copy it there\)$"):
        plan_like_baseline(settings(), baseline, 5, BASE)


def test_a_baseline_without_a_setting_leaves_it_alone() -> None:
    """Results written before a plan setting existed do not record it."""
    baseline = {k: v for k, v in recorded(rounds=4).items() if k != "rounds"}
    gate = plan_like_baseline(settings(), baseline, 5, BASE)
    assert gate.settings.rounds == 10
    assert set(PLAN_SETTINGS) <= set(recorded())
