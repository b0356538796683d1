"""r2r/static: analysers plus execution evidence, compared across clean, flawed and broken code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_req2rank.judging import _analysis
from pytest_req2rank.judging._static import StaticJudge
from pytest_req2rank.models import STATIC_JUDGE, JudgeVerdict

from .conftest import CLEAN, make_case, passing

FLAWED = """import os
password = "hunter2"
def add(a, b):
    try:
        return eval(input())
    except:
        pass
"""
BROKEN = "def add(a, b:\n    return a + b\n"


def judged(files: dict[str, str], **case: object) -> JudgeVerdict:
    verdict = StaticJudge().judge(make_case(files, **case))  # type: ignore[arg-type]
    assert verdict.error is None and verdict.scores is not None
    return verdict


def raw(verdict: JudgeVerdict) -> dict[str, Any]:
    findings: dict[str, Any] = json.loads(verdict.raw)
    return findings


def test_clean_code_beats_flawed_code_where_the_analysers_look() -> None:
    clean, flawed = judged({"calc.py": CLEAN}), judged({"calc.py": FLAWED})
    assert clean.judge == flawed.judge == STATIC_JUDGE
    assert clean.scores is not None and flawed.scores is not None
    for dimension in ("quality", "security", "engineering"):
        assert flawed.scores[dimension] < clean.scores[dimension], dimension
    assert clean.scores["security"] == clean.scores["engineering"] == 100.0
    assert flawed.overall is not None and clean.overall is not None
    assert flawed.overall < clean.overall
    findings = raw(flawed)
    assert findings["bandit"]["count"] >= 2 and findings["ruff"]["count"] >= 3
    assert any("eval" in message for message in findings["bandit"]["top"])
    assert any("except" in message for message in findings["ruff"]["top"])


def test_suppression_comments_do_not_hide_findings() -> None:
    hidden = FLAWED.replace("eval(input())", "eval(input())  # nosec # noqa").replace(
        "except:", "except:  # noqa: E722"
    )
    assert judged({"calc.py": hidden}).scores == judged({"calc.py": FLAWED}).scores


def test_code_that_does_not_parse_earns_nothing_from_analysis() -> None:
    verdict = judged({"calc.py": BROKEN}, ratio=0.0, execution=passing(failing=("adds",)))
    assert verdict.scores == {
        "functionality": 0.0,
        "quality": 0.0,
        "logic": 15.0,
        "security": 0.0,
        "engineering": 0.0,
    }  # logic: .15 · 100 (no crash)
    assert "calc.py" in raw(verdict)["syntax_errors"]
    assert "1 not parsing (calc.py)" in verdict.rationale


def test_a_broken_file_costs_its_share_of_the_code() -> None:
    whole, half = judged({"calc.py": CLEAN}), judged({"calc.py": CLEAN, "more.py": BROKEN})
    assert whole.scores is not None and half.scores is not None
    assert 0 < half.scores["security"] < whole.scores["security"]
    assert raw(half)["components"]["parsed"] == 0.5  # 2 of 4 source lines parse


def test_non_python_files_and_escaping_paths_are_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    files = {
        "calc.py": CLEAN,
        "README.md": "# add\n",
        "../../evil.py": "import os\nos.system('x')\n",
    }
    mixed, alone = judged(files), judged({"calc.py": CLEAN})
    assert mixed.scores == alone.scores
    assert raw(mixed)["skipped"] == ["README.md", "../../evil.py"]
    assert list(tmp_path.iterdir()) == []  # analysers ran in their own temporary directory


def test_without_python_code_only_the_evidence_scores() -> None:
    verdict = judged({"README.md": "nothing"}, ratio=1.0, execution=passing("adds"))
    assert verdict.scores == {
        "functionality": 100.0,
        "quality": 0.0,
        "logic": 85.0,
        "security": 0.0,
        "engineering": 0.0,
    }
    assert verdict.rationale.startswith("no Python code to analyse")


def test_functionality_and_logic_follow_the_execution_evidence() -> None:
    full = judged({"calc.py": CLEAN}, ratio=1.0, execution=passing("a", "b"))
    half = judged({"calc.py": CLEAN}, ratio=0.5, execution=passing("a", failing=("b",)))
    unknown = judged({"calc.py": CLEAN})
    assert full.scores is not None and half.scores is not None and unknown.scores is not None
    assert (
        full.scores["functionality"],
        half.scores["functionality"],
        unknown.scores["functionality"],
    ) == (100.0, 50.0, 50.0)
    # logic = .4·pass + .3·edge + .15·no crash + .15·complexity (add() has rank A: 100)
    assert full.scores["logic"] == 100.0
    assert half.scores["logic"] == 65.0  # .4·50 + .3·50 + .15·100 + .15·100
    assert unknown.scores["logic"] == 57.5  # .85·50 + .15·100
    for other in ("quality", "security", "engineering"):
        assert full.scores[other] == half.scores[other] == unknown.scores[other]


def test_edge_cases_are_the_should_and_nice_probes() -> None:
    execution = passing("core", "more", failing=("empty", "unicode"))
    priorities = {"core": "must", "more": "must", "empty": "should", "unicode": "nice"}
    verdict = judged({"calc.py": CLEAN}, ratio=0.6, execution=execution, priorities=priorities)
    parts = raw(verdict)["components"]
    assert (parts["pass_ratio"], parts["edge_cases"], parts["no_crash"]) == (60.0, 0.0, 100.0)
    assert verdict.scores is not None and verdict.scores["logic"] == 54.0  # 24 + 0 + 15 + 15


def test_the_verdict_is_deterministic() -> None:
    first, second = judged({"calc.py": FLAWED}), judged({"calc.py": FLAWED})
    assert (first.scores, first.raw, first.rationale) == (
        second.scores,
        second.raw,
        second.rationale,
    )


def test_an_analyser_that_cannot_run_drops_the_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_analysis, "_ruff_command", lambda: ["/nonexistent/ruff"])
    verdict = StaticJudge().judge(make_case())
    assert verdict.scores is None and verdict.error is not None
    assert verdict.error.startswith("analysis_error: ruff could not run")


def test_asserts_in_tests_and_swallowed_errors_are_not_security_findings() -> None:
    tests = "from calc import add\n\n\ndef test_add() -> None:\n    assert add(1, 2) == 3\n"
    swallow = (
        CLEAN + '\n\ndef quiet() -> None:\n    """Swallow."""\n    try:\n'
        "        add(1, 2)\n    except Exception:\n        pass\n"
    )
    with_tests = judged({"calc.py": CLEAN, "tests/test_calc.py": tests})
    assert with_tests.scores is not None and with_tests.scores["security"] == 100.0
    swallowing = judged({"calc.py": swallow})
    assert swallowing.scores is not None and swallowing.scores["security"] == 100.0
    assert raw(swallowing)["components"]["error_handling"] < 100.0  # scored here instead
    asserting = judged({"calc.py": CLEAN + "\nassert add(1, 2) == 3\n"})
    assert asserting.scores is not None and asserting.scores["security"] < 100.0
