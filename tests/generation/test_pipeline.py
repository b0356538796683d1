"""The generator pipeline with the scripted fake provider: three stages, calibration, fallback."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_req2rank.generation import elaborate, instantiate, load_templates, sandbox_grader
from pytest_req2rank.generation._calibrate import CalibrationPolicy
from pytest_req2rank.generation._pipeline import Elaboration
from pytest_req2rank.generation._quality import ProbeGrader
from pytest_req2rank.generation._structured import StructureError, as_answer, read_answer
from pytest_req2rank.models import ProjectRequirement
from pytest_req2rank.providers import LiteLLMProvider, Provider
from pytest_req2rank.providers.fake import fake_calls, reset_fake_state, set_fake_script
from pytest_req2rank.sandbox import create_sandbox

BY_ID = {template.id: template for template in load_templates()}
BASE = instantiate(BY_ID["rate-limiter"], domain="finance", scenario="finance/risk-rules")
POLICY = CalibrationPolicy(mutant_limit=8)
FUNC = BY_ID["word-frequency"].slot("func").values[-1]
GOOD = as_answer(instantiate(BY_ID["word-frequency"], {"func": FUNC}))
HUMANEVAL_LIKE = {
    **GOOD,
    "title": "Detect close elements in a list of numbers",
    "description": "Check if in the given list of numbers, any two numbers are closer to each "
                   "other than the given threshold.",
    "functionalRequirements": [{
        "id": "FR-1", "priority": "must",
        "description": "has_close_elements(numbers, threshold) returns True when two numbers are "
                       "closer to each other than threshold.",
        "acceptanceCriteria": "has_close_elements([1.0, 2.8, 3.0], 0.3) is True.",
    }],
    "interface": {"kind": "function",
                  "text": "def has_close_elements(numbers: List[float], threshold: float) -> bool"},
}


@pytest.fixture(scope="module")
def grader() -> Iterator[ProbeGrader]:
    with create_sandbox("process") as sandbox:
        yield sandbox_grader(sandbox)


@pytest.fixture
def generator() -> Iterator[Provider]:
    async def no_sleep(seconds: float) -> None:
        return None

    reset_fake_state()
    yield LiteLLMProvider("fake/generator", sleep=no_sleep)
    reset_fake_state()


def script(*stage3: str | dict[str, Any], review: str = "Ambiguity: none left. Revised draft: …"
           ) -> None:
    """Stage 1 and 2 answer prose; stage 3 answers ``stage3`` in turn (the last one repeats)."""
    answers = [{"text": a if isinstance(a, str) else json.dumps(a)} for a in stage3]
    set_fake_script({"models": {"generator": [
        {"match": "^Stage 1 of 3", "responses": [{"text": "Draft: a word-count helper …"}]},
        {"match": "^Stage 2 of 3", "responses": [{"text": review}]},
        {"match": "^Stage 3 of 3", "responses": answers},
    ]}})


def run(provider: Provider, grader: ProbeGrader, **options: Any) -> Elaboration:
    return elaborate(BASE, provider, grader, policy=POLICY, **options)


def test_three_stages_end_to_end(generator: Provider, grader: ProbeGrader) -> None:
    script(GOOD)
    result = run(generator, grader)
    assert not result.fallback
    req = result.requirement
    assert req.id == f"{BASE.id}~generated"
    assert req.metadata == BASE.metadata
    assert req.reference == GOOD["referenceSolution"]
    assert [p.name for p in req.probes] == [t["name"] for t in GOOD["hiddenTests"]]
    (attempt,) = result.provenance.attempts
    assert attempt.outcome == "accepted" and attempt.parsed == "json"
    assert [s.stage for s in attempt.stages] == ["draft", "review", "structure"]
    assert attempt.calibration is not None and attempt.calibration.accepted
    assert attempt.calibration.dropped == ()
    assert attempt.calibration.mutants_total == 8 and attempt.calibration.mutation_score >= 0.7
    assert attempt.duplicate is not None and not attempt.duplicate.duplicate
    assert result.provenance.generator == "fake/generator"
    calls = fake_calls()
    assert len(calls) == 3
    draft, review, structure = (call["messages"] for call in calls)
    assert "Domain finance, scenario finance/risk-rules" in draft[-1]["content"]
    assert BASE.title in draft[-1]["content"]
    assert review[-2] == {"role": "assistant", "content": "Draft: a word-count helper …"}
    assert '"hiddenTests"' in structure[-1]["content"]
    assert calls[2]["response_format"] is not None and calls[0]["response_format"] is None
    assert Elaboration.model_validate_json(result.model_dump_json()) == result


def test_calibration_drops_a_test_the_reference_fails(generator: Provider, grader: ProbeGrader) -> None:
    answer = copy.deepcopy(GOOD)
    wrong = {**answer["hiddenTests"][0], "name": "wrong-expectation", "expect": "not what it returns"}
    answer["hiddenTests"].append(wrong)
    script(answer)
    result = run(generator, grader)
    assert not result.fallback
    calibration = result.provenance.attempts[0].calibration
    assert calibration is not None
    assert [(d.name, d.status) for d in calibration.dropped] == [("wrong-expectation", "wrong_answer")]
    assert calibration.probes_total == len(answer["hiddenTests"])
    assert "wrong-expectation" not in {p.name for p in result.requirement.probes}
    assert len(result.requirement.probes) == len(GOOD["hiddenTests"])


def test_failed_regeneration_falls_back_to_the_template_variant(generator: Provider,
                                                            grader: ProbeGrader) -> None:
    broken = copy.deepcopy(GOOD)
    path = next(iter(broken["referenceSolution"]))
    broken["referenceSolution"][path] = f"def {FUNC}(text, k=3):\n    return []\n"
    script(broken)
    result = run(generator, grader, max_attempts=2)
    assert result.fallback
    assert result.requirement == BASE
    assert [a.outcome for a in result.provenance.attempts] == ["calibration", "calibration"]
    reason = result.provenance.fallback_reason or ""
    assert reason.startswith("no acceptable requirement in 2 attempts; last: the reference passes")
    assert reason.endswith("using the offline template variant")
    second_draft = fake_calls()[3]["messages"][-1]["content"]
    assert "An earlier attempt was rejected: the reference passes" in second_draft


def test_tests_that_kill_no_mutant_are_rejected_then_a_better_answer_is_used(
    generator: Provider, grader: ProbeGrader,
) -> None:
    weak = copy.deepcopy(GOOD)
    weak["hiddenTests"] = [{"name": f"trivial-{i}", "code": f"result = callable({FUNC})",
                            "expect": True, "priority": "must"} for i in range(6)]
    script(weak, GOOD)
    result = run(generator, grader)
    first, second = result.provenance.attempts
    assert first.outcome == "calibration"
    assert first.reason == "the hidden tests kill 0 of 8 mutants of the reference; 70% are needed"
    assert second.outcome == "accepted" and not result.fallback


def test_a_fenced_json_block_is_accepted(generator: Provider, grader: ProbeGrader) -> None:
    script("Here is the requirement:\n```json\n" + json.dumps(GOOD) + "\n```\nDone.")
    result = run(generator, grader)
    assert not result.fallback and result.provenance.attempts[0].parsed == "fenced"


def test_invalid_json_is_asked_for_again_once(generator: Provider, grader: ProbeGrader) -> None:
    script("I think the requirement is fine.", GOOD)
    result = run(generator, grader)
    assert not result.fallback
    assert [s.stage for s in result.provenance.attempts[0].stages] == [
        "draft", "review", "structure", "structure-retry"]
    retry = fake_calls()[3]["messages"][-1]["content"]
    assert retry.startswith("Stage 3 of 3, again: your answer could not be used:")
    assert "the answer is not JSON" in retry and "no fenced JSON block" in retry


def test_invalid_twice_ends_in_the_fallback(generator: Provider, grader: ProbeGrader) -> None:
    incomplete = {k: v for k, v in GOOD.items() if k != "hiddenTests"}
    script(incomplete)
    result = run(generator, grader, max_attempts=1)
    assert result.fallback and result.requirement == BASE
    (attempt,) = result.provenance.attempts
    assert attempt.outcome == "invalid"
    assert "'hiddenTests' is a required property" in attempt.reason
    assert len(fake_calls()) == 4


def test_a_near_duplicate_of_humaneval_is_rejected(generator: Provider, grader: ProbeGrader) -> None:
    script(HUMANEVAL_LIKE, GOOD)
    result = run(generator, grader)
    first, second = result.provenance.attempts
    assert first.outcome == "duplicate" and first.calibration is None
    assert first.duplicate is not None and first.duplicate.problem == "HumanEval/0"
    assert first.duplicate.similarity >= first.duplicate.threshold
    assert "near-duplicate of humaneval problem HumanEval/0" in first.reason
    assert second.outcome == "accepted"


def test_a_generator_outage_falls_back_at_once(generator: Provider, grader: ProbeGrader) -> None:
    set_fake_script({"models": {"generator": [{"responses": [{"error": "auth"}]}]}})
    result = run(generator, grader)
    assert result.fallback and result.requirement == BASE
    (attempt,) = result.provenance.attempts
    # the failed stage is kept with the call it made, so the generator's calls are counted
    (stage,) = attempt.stages
    assert attempt.outcome == "provider_error" and (stage.stage, stage.text) == ("draft", "")
    assert stage.calls == 1 and (stage.error or "").startswith("draft: api_error: Authentication")
    assert result.usage.calls == 1
    assert (result.provenance.fallback_reason or "").startswith("the generator failed: draft: api_error")


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda a: a["hiddenTests"].append(dict(a["hiddenTests"][0])),
         r"hiddenTests\[\d+\]\.name: '.*' is used more than once"),
        (lambda a: a["referenceSolution"].update({"../escape.py": "x = 1\n"}),
         r"referenceSolution: '../escape.py' does not match"),
        (lambda a: a["hiddenTests"][0].update({"code": "result = ("}),
         r"hiddenTests\[0\]\.code: does not compile"),
        (lambda a: a["functionalRequirements"][0].update({"priority": "urgent"}),
         r"functionalRequirements\[0\]\.priority: 'urgent' is not one of"),
        (lambda a: a["hiddenTests"][0].update({"raises": "ValueError"}),
         r"hiddenTests\[0\]: .* is valid under each of"),
    ],
)
def test_structured_answers_are_checked_against_the_schema(change: Any, problem: str) -> None:
    answer = copy.deepcopy(GOOD)
    change(answer)
    with pytest.raises(StructureError, match=problem):
        read_answer(json.dumps(answer), BASE)


def test_answers_map_onto_project_requirements() -> None:
    answer = copy.deepcopy(GOOD)
    answer["functionalRequirements"][0]["priority"] = "nice-to-have"
    req, route = read_answer(json.dumps(answer), BASE)
    assert route == "json"
    assert isinstance(req, ProjectRequirement) and req.requirements[0].priority == "nice"
    assert req.slots == BASE.slots and req.template_id == BASE.template_id
    with pytest.raises(StructureError, match="a JSON list, not an object"):
        read_answer("[1, 2]", BASE)


def test_a_reasoning_generator_is_read_from_its_final_answers(generator: Provider,
                                                              grader: ProbeGrader) -> None:
    incomplete = {k: v for k, v in GOOD.items() if k != "hiddenTests"}
    set_fake_script({"models": {"generator": [
        {"match": "^Stage 1 of 3", "responses": [
            {"text": "<think>\nA word counter? No, keep the template's idea.\n</think>\n\nDraft: a "
                     "word-count helper …"}]},
        {"match": "^Stage 2 of 3", "responses": [{"text": "<think>ok</think>Ambiguity: none."}]},
        {"match": "^Stage 3 of 3", "responses": [
            {"text": f"<think>\nFirst attempt:\n```json\n{json.dumps(incomplete)}\n```\nIt lacks "
                     f"the hidden tests.\n</think>\n{json.dumps(GOOD)}"}]},
    ]}})
    result = run(generator, grader)
    assert not result.fallback
    (attempt,) = result.provenance.attempts
    assert attempt.outcome == "accepted" and attempt.parsed == "json"
    assert [s.stage for s in attempt.stages] == ["draft", "review", "structure"]
    assert attempt.stages[0].text == "Draft: a word-count helper …"
    review = fake_calls()[1]["messages"]
    assert review[-2] == {"role": "assistant", "content": "Draft: a word-count helper …"}
