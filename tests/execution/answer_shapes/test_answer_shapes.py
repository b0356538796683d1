"""The answer-shape corpus graded through the real pipeline: the scripted fake model answers
each HumanEval task (and two dynamic-suite requirements) in each shape, and every item must
get what the program the model meant gets."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_req2rank.execution import RunOptions, extract_code, grade, run_requirement, run_task
from pytest_req2rank.generation import instantiate, load_templates
from pytest_req2rank.judging import JudgeCase, LLMJudge, parse_judge_answer
from pytest_req2rank.models import ItemResult, ProjectRequirement, Task
from pytest_req2rank.providers import LiteLLMProvider, SamplesProvider
from pytest_req2rank.providers.fake import reset_fake_state, set_fake_script
from pytest_req2rank.sandbox import ProcessSandbox
from pytest_req2rank.suites import load_humaneval

from .shapes import (
    DECOY_SCORES,
    FILES_SHAPES,
    FUNCTION_SHAPES,
    JUDGE_SCORES,
    JUDGE_SHAPES,
    FilesShape,
    Program,
    Shape,
    fence,
    program_of,
)

TASK_IDS = ("HumanEval/0", "HumanEval/10", "HumanEval/32", "HumanEval/38", "HumanEval/107")
"""A lone function with an import; a helper the entry point calls; a helper and an import;
a helper the tests call too; a function with a nested helper."""
TEMPLATE_IDS = ("follow-graph-store", "indexed-table")
OPTIONS = RunOptions(sandbox_timeout_s=5.0)
PROGRAMS = {task.task_id: program_of(task) for task in load_humaneval()
            if task.task_id in TASK_IDS}
REQUIREMENTS = {template.id: instantiate(template) for template in load_templates()
                if template.id in TEMPLATE_IDS}


def _requirement_task(requirement: ProjectRequirement) -> Task:
    return Task(item_id=f"dynamic/{requirement.id}", dataset="dynamic", task_id=requirement.id,
                form="requirement", prompt=requirement.description, reference="",
                reference_files=requirement.reference)


@pytest.fixture(scope="module", autouse=True)
def _shaped_model() -> Iterator[None]:
    """``fake/<shape>`` answers each task in that shape (its rule matches the task's prompt)."""
    models: dict[str, list[dict[str, object]]] = {
        shape.name: [{"match": re.escape(f"def {program.entry_point}("),
                      "responses": [shape.answer(program)]} for program in PROGRAMS.values()]
        for shape in FUNCTION_SHAPES}
    models |= {shape.name: [{"match": re.escape(requirement.title),
                             "responses": [shape.answer(dict(requirement.reference))]}
                            for requirement in REQUIREMENTS.values()]
               for shape in FILES_SHAPES}
    models |= {f"judge-{name}": [{"responses": [answer]}] for name, answer in JUDGE_SHAPES.items()}
    reset_fake_state()
    set_fake_script({"models": models})
    yield
    reset_fake_state()


def _graded_as_meant(item: ItemResult, outcome: str) -> None:
    if outcome in ("meant", "meant_cut"):
        assert (item.status, item.tests_passed) == ("success", item.tests_total), item.reason
        assert item.tests_total > 0 and item.score == 100.0
        if outcome == "meant_cut":
            assert item.reason is not None and "cut by the token limit" in item.reason
        else:
            assert item.reason is None
    elif outcome == "truncated":
        assert (item.status, item.score, item.tests) == ("truncated", 0.0, []), item.reason
    else:
        assert item.status == "syntax_error" and item.score == 0.0
        assert (item.reason or "").startswith("format_error: the answer refuses the task")


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_each_draft_fails_and_each_program_passes(task_id: str, box: ProcessSandbox) -> None:
    """The corpus can fail: an answer graded from its draft would not pass."""
    program = PROGRAMS[task_id]
    timeout_s = OPTIONS.sandbox_timeout_s
    draft = grade(program.task, {"solution.py": program.draft}, box, timeout_s=timeout_s)
    assert draft.status in ("wrong_answer", "runtime_error")
    assert grade(program.task, {"solution.py": program.code}, box,
                 timeout_s=timeout_s).status == "success"


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_read_with_its_reasoning_an_answer_would_be_graded_from_its_draft(task_id: str) -> None:
    """The corpus can fail: without the reasoning taken out, the code found in every reasoning
    shape whose final program is not the answer's last fenced block is the draft."""
    program = PROGRAMS[task_id]
    from_draft = set()
    for shape in FUNCTION_SHAPES:
        if shape.reasoned:
            found = extract_code(shape.answer(program)["text"], entry_point=program.entry_point,
                                 prompt=program.task.prompt)
            if found is not None and found.files["solution.py"].strip() == program.draft.strip():
                from_draft.add(shape.name)
    assert from_draft == {shape.name for shape in FUNCTION_SHAPES if shape.reasoned} - {
        "think-draft-then-fence", "reasoning-returned-apart"}


@pytest.mark.parametrize("task_id", TASK_IDS)
@pytest.mark.parametrize("shape", FUNCTION_SHAPES, ids=lambda shape: shape.name)
def test_a_function_answer_is_graded_as_the_program_meant(shape: Shape, task_id: str,
                                                          box: ProcessSandbox) -> None:
    program = PROGRAMS[task_id]
    item = run_task(program.task, LiteLLMProvider(f"fake/{shape.name}"), box, OPTIONS)
    _graded_as_meant(item, shape.outcome)
    if shape.reasoned:
        assert program.draft.strip() in item.reasoning  # kept for reading, never graded
        assert program.draft.strip() not in item.response
    if item.raw_response is not None:
        assert item.response in item.raw_response or item.response.strip() in item.raw_response
    cut = shape.outcome in ("meant_cut", "truncated")
    assert item.finish_reason == ("length" if cut else "stop")


@pytest.mark.parametrize("shape", FUNCTION_SHAPES, ids=lambda shape: shape.name)
def test_the_hubs_replay_of_the_recorded_answer_agrees(shape: Shape, tmp_path: Path,
                                                       box: ProcessSandbox) -> None:
    """The hub replays a run's answers from its results (``response`` and ``finish_reason``,
    through ``r2r/samples``): every shape's item gets its status again."""
    program = PROGRAMS["HumanEval/10"]
    item = run_task(program.task, LiteLLMProvider(f"fake/{shape.name}"), box, OPTIONS)
    path = tmp_path / "samples.jsonl"
    path.write_text(json.dumps({"task_id": item.task_id, "completion": item.response,
                                "finish_reason": item.finish_reason}) + "\n")
    again = run_task(program.task, SamplesProvider(path), box, OPTIONS)
    assert (again.status, again.tests_passed) == (item.status, item.tests_passed), again.reason


@pytest.mark.parametrize("template_id", TEMPLATE_IDS)
@pytest.mark.parametrize("shape", FILES_SHAPES, ids=lambda shape: shape.name)
def test_a_multi_file_answer_keeps_its_files(shape: FilesShape, template_id: str,
                                             box: ProcessSandbox) -> None:
    requirement = REQUIREMENTS[template_id]
    item = run_requirement(_requirement_task(requirement), requirement,
                           LiteLLMProvider(f"fake/{shape.name}"), box, OPTIONS)
    _graded_as_meant(item, shape.outcome)
    if shape.outcome == "meant":
        assert set(item.code) == set(requirement.reference)
        assert item.score == 100.0


def test_a_samples_file_of_a_reasoning_model_is_graded_from_its_final_answers(
        tmp_path: Path, box: ProcessSandbox) -> None:
    """``r2r/samples``: the body-only completion after the reasoning is the program."""
    program: Program = PROGRAMS["HumanEval/0"]
    body = program.task.reference.removeprefix(program.task.prompt)
    assert body != program.task.reference and body.startswith("    ")
    path = tmp_path / "samples.jsonl"
    path.write_text(json.dumps({"task_id": "HumanEval/0", "completion": (
        f"<think>\nDraft:\n{fence(program.draft)}\n</think>\n\n{body}")}) + "\n")
    item = run_task(program.task, SamplesProvider(path), box, OPTIONS)
    _graded_as_meant(item, "meant")
    assert program.draft.strip() in item.reasoning


@pytest.mark.parametrize("shape", sorted(JUDGE_SHAPES))
def test_a_judge_answer_is_read_from_its_final_answer(shape: str) -> None:
    """The decoy in the reasoning is a valid answer with other scores: read with the
    reasoning, the verdict would be the decoy's."""
    program = PROGRAMS["HumanEval/0"]
    case = JudgeCase(requirement=program.task.prompt, guidance="",
                     files={"solution.py": program.code}, execution=None, execution_ratio=1.0,
                     target_model="fake/coder", priorities={})
    verdict = LLMJudge(LiteLLMProvider(f"fake/judge-{shape}")).judge(case)
    assert verdict.error is None
    assert verdict.scores == {name: float(score) for name, score in JUDGE_SCORES.items()}
    assert verdict.rationale == "Correct and clear."
    answer = JUDGE_SHAPES[shape]
    if "reasoning" not in answer and "fenced" not in shape:  # the reasoning left in: the decoy
        assert parse_judge_answer(answer["text"]).scores == {
            name: float(score) for name, score in DECOY_SCORES.items()}
