"""What judges are shown: a case from a finished item, the guidance text, the pass ratio."""

from __future__ import annotations

import pytest

from pytest_req2rank.generation import instantiate, load_templates
from pytest_req2rank.judging import JudgeCase, execution_ratio
from pytest_req2rank.judging._case import guidance_text
from pytest_req2rank.models import ExecutionResult, ItemResult, TestOutcome

from .conftest import passing

REQUIREMENT = instantiate(next(s for s in load_templates() if s.id == "word-frequency"))


def test_guidance_text_lists_every_section() -> None:
    text = guidance_text(REQUIREMENT.guidance)
    assert text.startswith("Key differentiators:\n- ")
    assert "\n\nCommon pitfalls:\n- " in text and "\n\nEdge cases:\n- " in text
    for line in (*REQUIREMENT.guidance.pitfalls, *REQUIREMENT.guidance.edge_cases):
        assert f"- {line}" in text


def test_execution_ratio_weights_priorities() -> None:
    execution = passing("core", "edge", failing=("extra",))
    # must 3 passed, should 2 passed, nice 1 failed: 5 / 6
    ratio = execution_ratio(execution, {"core": "must", "edge": "should", "extra": "nice"})
    assert ratio == pytest.approx(5 / 6)
    assert execution_ratio(execution, {}) == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("status", "ratio"),
    [
        ("syntax_error", 0.0),
        ("timeout", 0.0),
        ("runtime_error", 0.0),
        ("success", None),
        ("api_error", None),
        ("sandbox_error", None),
    ],
)
def test_without_test_outcomes(status: str, ratio: float | None) -> None:
    assert execution_ratio(ExecutionResult(status=status), {}) == ratio  # type: ignore[arg-type]
    assert execution_ratio(None, {}) is None


def test_a_case_from_a_dynamic_item() -> None:
    probes = REQUIREMENT.probes
    tests = [
        TestOutcome(name=p.name, status="success" if i else "wrong_answer")
        for i, p in enumerate(probes)
    ]
    item = ItemResult(item_id="dynamic/x", dataset="dynamic", task_id="x", model="fake/coder",
                      status="wrong_answer", tests=tests, prompt="the brief",
                      code={"solution.py": "x = 1\n"}, judge_time_s=1.5, sandbox="process")
    case = JudgeCase.from_item(item, REQUIREMENT)
    assert (case.requirement, case.target_model, case.files) == (
        "the brief",
        "fake/coder",
        {"solution.py": "x = 1\n"},
    )
    assert case.guidance == guidance_text(REQUIREMENT.guidance)
    assert case.priorities == {p.name: p.priority for p in probes}
    assert case.execution is not None and case.execution.tests == tests
    assert case.execution_ratio == execution_ratio(case.execution, case.priorities)
    assert case.execution_ratio is not None and 0 < case.execution_ratio < 1


def test_a_case_from_a_static_item() -> None:
    check = [TestOutcome(name="check", status="success")]
    item = ItemResult(item_id="he/1", dataset="he", task_id="1", model="gpt-4o", status="success",
                      tests=check, prompt="def f():")
    case = JudgeCase.from_item(item)
    assert (case.guidance, case.priorities, case.execution_ratio) == ("", {}, 1.0)
