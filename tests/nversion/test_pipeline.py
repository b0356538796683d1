"""The generation pipeline driven without pytest by the scripted fake model: every transition,
a retry with its error fed back, the retry bound's error end, rollbacks whose reasons later
prompts carry, the implementation veto, and test-driven repair (fixed within K; never fixed,
kept as failing)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pytest_req2rank.execution import ReferenceCache, RunOptions
from pytest_req2rank.models import GenerationConfig, IOCase, Task
from pytest_req2rank.nversion import Generation
from pytest_req2rank.nversion._generated import version_result
from pytest_req2rank.nversion._knowledge import load_knowledge
from pytest_req2rank.nversion._pipeline import GenerationPipeline
from pytest_req2rank.providers import LiteLLMProvider
from pytest_req2rank.providers.fake import fake_calls, reset_fake_state, set_fake_script
from pytest_req2rank.sandbox import ProcessSandbox

from ._scripts import (
    ADD3,
    IMPLEMENT,
    NEGATE,
    PLANS,
    REPAIR,
    RIGHT,
    THOUGHTS,
    UNDERSTAND,
    UNDERSTOOD,
    WRONG,
    as_json,
    fenced,
    no_sleep,
    plans,
    script,
    thoughts,
)

DISTINCT = GenerationConfig(solutions=1, p_qn1=0.0)  # IRQN accepts all: nothing to regenerate


@pytest.fixture
def run(nv_sandbox: ProcessSandbox) -> Iterator[Callable[..., Generation]]:
    """``run(rules, config=..., n=3, similarity=...)``: the pipeline of ``add3`` over the
    scripted model ``fake/nv``."""

    def go(rules: list[dict[str, Any]], config: GenerationConfig = DISTINCT, n: int = 3,
           similarity: Callable[[str, str], float] = lambda a, b: 0.0,
           task: Task = ADD3) -> Generation:
        set_fake_script({"models": {"nv": rules}})
        provider = LiteLLMProvider("fake/nv", sleep=no_sleep)
        pipeline = GenerationPipeline(
            task, provider, nv_sandbox, RunOptions(seed=7, sandbox_timeout_s=3.0), n=n,
            config=config, knowledge=load_knowledge(), similarity=similarity,
            cache=ReferenceCache(), rng=random.Random(1))
        return pipeline.run()

    reset_fake_state()
    yield go
    reset_fake_state()


def _prompts(match: str) -> list[str]:
    import re

    return [call["messages"][-1]["content"] for call in fake_calls()
            if re.search(match, call["messages"][-1]["content"])]


def _path(generation: Generation) -> list[tuple[str, str, str]]:
    return [(t.source, t.target, t.action) for t in generation.record.transitions]


def test_each_state_transitions_once_to_complete(run: Callable[..., Generation]) -> None:
    generation = run(script([fenced(code) for code in RIGHT[:3]]))
    assert _path(generation) == [
        ("understanding", "ideation", "transition"), ("ideation", "synthesis", "transition"),
        ("synthesis", "validation", "transition"), ("validation", "collection", "transition"),
        ("collection", "complete", "transition")]
    record = generation.record
    assert record.end == "complete" and record.retries == record.rollbacks == 0
    assert record.family == "arithmetic" and record.knowledge_version == 1
    assert record.calls == 8 == len(fake_calls())  # understanding, ideas, 3 plans, 3 programs
    assert sum(t.calls for t in record.transitions) == 8
    assert [p.graded.passed for p in generation.versions] == [True] * 3
    assert sorted(p.graded.candidate.code for p in generation.versions) == sorted(RIGHT[:3])
    assert all(IMPLEMENT in p.graded.candidate.prompt and p.graded.candidate.code in
               p.graded.candidate.response for p in generation.versions)
    assert record.irqn == {"unjudged": 3, "retain": 0, "question": 0, "negate": 0}


def test_hile_branches_are_isolated_and_draw_on_the_knowledge_base(
        run: Callable[..., Generation]) -> None:
    run(script([fenced(code) for code in RIGHT[:3]]))
    plans = _prompts(PLANS)
    assert len(plans) == 3
    for k, prompt in enumerate(plans):  # each plan prompt holds its own idea, no other
        assert f"idea-{k}" in prompt
        assert all(f"idea-{j}" not in prompt for j in range(3) if j != k)
    ideas = _prompts(THOUGHTS)[0]
    arithmetic = load_knowledge().of("arithmetic")
    assert all(paradigm in ideas for paradigm in arithmetic.paradigms)
    programs = _prompts(IMPLEMENT)
    assert [arithmetic.control_flow[k] in programs[k] for k in range(3)] == [True] * 3


def test_an_unparseable_answer_is_a_retry_with_the_error_fed_back(
        run: Callable[..., Generation]) -> None:
    generation = run(script([fenced(code) for code in RIGHT[:3]],
                            understanding=[{"text": "Sure! The task adds numbers."},
                                           as_json(UNDERSTOOD)]))
    first = generation.record.transitions[0]
    assert (first.source, first.target, first.action) == ("understanding", "understanding",
                                                          "retry")
    assert "not JSON" in first.reason and first.calls == 1
    asked = _prompts(UNDERSTAND)
    assert len(asked) == 2 and "not JSON" not in asked[0]
    assert "previous answer was rejected: the answer is not JSON" in asked[1]
    assert generation.record.end == "complete" and generation.record.retries == 1


@pytest.mark.parametrize(("rules", "reason"), [
    ({"plan_answers": [as_json({"solutions": [{"name": "p", "data_structures": ["int"],
                                                "steps": ["total = a + b + 3"]}]}),
                        as_json({"solutions": [{"name": "p", "data_structures": ["int"],
                                                "steps": ["Add three to the sum"]}]})]},
     "contains code ('total = a + b + 3')"),
    ({"implementations": [{"text": "I would add the numbers."}, fenced(RIGHT[0]),
                           fenced(RIGHT[1]), fenced(RIGHT[2])]},
     "holds no code"),
    ({"implementations": [fenced("def add(a, b):\n    return a + b + 3\n"),
                           *[fenced(c) for c in RIGHT[:3]]]},
     "does not define the function add3()"),
    ({"thought_answers": [as_json({"thoughts": [
        {"name": f"i{k}", "paradigm": "loop", "idea": f"idea {k}"} for k in range(3)]})]},
     "not distinct (the same paradigm)"),
])
def test_a_failed_check_is_retried(run: Callable[..., Generation], rules: dict[str, Any],
                                   reason: str) -> None:
    implementations = rules.pop("implementations", [fenced(c) for c in RIGHT[:3]])
    generation = run(script(implementations, **rules))
    retries = [t for t in generation.record.transitions if t.action == "retry"]
    assert retries and reason in retries[0].reason
    if "thought_answers" in rules:  # the same wrong ideas every time: the bound ends it
        assert generation.record.end == "error"
    else:
        assert generation.record.end == "complete" and len(retries) == 1


def test_the_retry_bound_ends_in_error(run: Callable[..., Generation]) -> None:
    generation = run(script([fenced(RIGHT[0])], understanding=[{"text": "{not json"}]),
                     config=DISTINCT.model_copy(update={"retries": 2}))
    record = generation.record
    assert [t.action for t in record.transitions] == ["retry", "retry", "error"]
    assert record.transitions[-1].target == "error" and record.end == "error"
    assert "retry bound (2) reached" in (record.reason or "")
    assert len(fake_calls()) == 3 and generation.versions == []
    item = version_result(ADD3, "nversion/add3/v1", "nversion/add3", generation, 1, n=3,
                          model="fake/nv", sandbox="process", worker="main")
    assert item.status == "syntax_error" and "ended in error" in (item.reason or "")
    assert item.nversion is not None and item.nversion.generation == record


def test_a_failing_round_rolls_back_and_later_prompts_remember_why(
        run: Callable[..., Generation]) -> None:
    config = DISTINCT.model_copy(update={"repairs": 0, "rollbacks": 1})
    generation = run(script([fenced(WRONG)] * 3 + [fenced(c) for c in RIGHT[:3]]), config)
    path = _path(generation)
    assert ("validation", "understanding", "rollback") in path
    assert path[-1] == ("collection", "complete", "transition")
    assert generation.record.rollbacks == 1
    rollback = next(t for t in generation.record.transitions if t.action == "rollback")
    assert "no candidate passes" in rollback.reason
    understood = _prompts(UNDERSTAND)
    assert len(understood) == 2 and "rolled back" not in understood[0]
    assert "no candidate passes" in understood[1]
    assert all("no candidate passes" in p for p in _prompts(IMPLEMENT)[3:])
    # The first round's failing programs are kept; the passing ones are collected first.
    assert [p.graded.passed for p in generation.versions] == [True] * 3


def test_the_implementation_veto_rolls_back_to_ideation(run: Callable[..., Generation]) -> None:
    config = GenerationConfig(solutions=1, p_qn1=1.0, p_qn2=0.0, irqn_iterations=1,
                              rollbacks=1)
    generation = run(script([fenced(c) for c in RIGHT[:3]]), config,
                     similarity=lambda a, b: 1.0)  # everything alike: negated
    path = _path(generation)
    assert ("synthesis", "ideation", "rollback") in path
    veto = next(t for t in generation.record.transitions if t.action == "rollback")
    assert "implementation veto" in veto.reason
    assert any("implementation veto" in p for p in _prompts(THOUGHTS)[1:])
    assert generation.record.irqn["negate"] > 0 and _prompts(NEGATE)
    arithmetic = load_knowledge().of("arithmetic")
    assert all(entry in _prompts(NEGATE)[0] for entry in arithmetic.data_structures)
    assert generation.record.end == "complete" and len(generation.versions) == 3
    assert sum(not p.graded.accepted for p in generation.versions) >= 1


def test_repair_fixes_a_version_within_k(run: Callable[..., Generation]) -> None:
    config = DISTINCT.model_copy(update={"repairs": 2})
    generation = run(script([fenced(RIGHT[0]), fenced(RIGHT[1]), fenced(WRONG)],
                            repairs=[fenced(WRONG), fenced(RIGHT[2])]), config)
    fixed = next(p.graded for p in generation.versions if p.graded.repairs)
    assert fixed.passed and fixed.repairs == 2 and fixed.candidate.code == RIGHT[2]
    assert generation.record.repair_iterations == 2
    asked = _prompts(REPAIR)
    assert len(asked) == 2 and "return a - b" in asked[0]
    assert "assert candidate(1, 2) == 6" in asked[0]
    item = version_result(ADD3, "nversion/add3/v2", "nversion/add3", generation,
                          generation.versions.index(next(p for p in generation.versions
                                                         if p.graded.repairs)),
                          n=3, model="fake/nv", sandbox="process", worker="main")
    assert item.status == "success" and item.nversion and item.nversion.lineage
    assert item.nversion.lineage.repaired and item.nversion.lineage.repairs == 2
    assert REPAIR in item.prompt and RIGHT[2] in item.response  # the call that wrote it


def test_a_version_that_never_passes_is_kept_as_failing(run: Callable[..., Generation]) -> None:
    config = DISTINCT.model_copy(update={"repairs": 2})
    generation = run(script([fenced(RIGHT[0]), fenced(RIGHT[1]), fenced(WRONG)],
                            repairs=[fenced(WRONG)]), config)
    assert len(generation.versions) == 3 and generation.record.end == "complete"
    failing = [p.graded for p in generation.versions if not p.graded.passed]
    assert len(failing) == 1 and failing[0].repairs == 2
    assert failing[0].execution.status == "wrong_answer"
    index = next(k for k, p in enumerate(generation.versions) if not p.graded.passed)
    item = version_result(ADD3, f"nversion/add3/v{index}", "nversion/add3", generation, index,
                          n=3, model="fake/nv", sandbox="process", worker="main")
    assert item.status == "wrong_answer" and item.code["solution.py"] == WRONG
    assert item.nversion and item.nversion.lineage and not item.nversion.lineage.passed


def test_usage_is_shared_out_so_totals_count_each_call_once(
        run: Callable[..., Generation]) -> None:
    rules = script([dict(fenced(c), usage={"prompt_tokens": 100, "completion_tokens": 10})
                    for c in RIGHT[:3]])
    generation = run(rules)
    items = [version_result(ADD3, f"nversion/add3/v{k}", "nversion/add3", generation, k, n=3,
                            model="fake/nv", sandbox="process", worker="main") for k in range(3)]
    assert sum(i.usage.calls for i in items) == generation.record.calls == 8
    assert sum(i.usage.prompt_tokens or 0 for i in items) == generation.record.prompt_tokens == 300


def test_an_error_end_keeps_the_programs_written_before_it(
        run: Callable[..., Generation]) -> None:
    generation = run(script([fenced(RIGHT[0]), fenced(RIGHT[1]), {"text": "no idea"}]),
                     DISTINCT.model_copy(update={"retries": 1}))
    assert generation.record.end == "error"
    assert _path(generation)[-1] == ("synthesis", "error", "error")
    codes = [p.graded.candidate.code for p in generation.versions]
    assert codes[:2] == RIGHT[:2] and codes[2] in RIGHT[:2]  # two programs: one repeats
    assert [p.repeated for p in generation.versions] == [False, False, True]
    assert all(p.graded.passed for p in generation.versions)


def test_a_provider_failure_is_infrastructure_not_the_models_fault(
        run: Callable[..., Generation]) -> None:
    generation = run([{"responses": [{"error": "auth"}]}])
    assert generation.provider_error is not None
    assert generation.record.end == "error" and generation.record.calls >= 1
    assert "the provider failed" in (generation.record.reason or "")
    item = version_result(ADD3, "nversion/add3/v0", "nversion/add3", generation, 0, n=3,
                          model="fake/nv", sandbox="process", worker="main")
    assert item.status == "api_error" and item.score is None


def test_an_io_task_gets_programs_graded_on_its_cases(run: Callable[..., Generation]) -> None:
    task = Task(item_id="nversion/sum3", dataset="demo", task_id="sum3", form="io",
                prompt="Read two integers from one line and print their sum plus three.",
                reference="a, b = map(int, input().split())\nprint(a + b + 3)\n",
                cases=(IOCase(input="1 2\n", output="6\n"), IOCase(input="0 0\n", output="3\n")))
    programs = ["a, b = map(int, input().split())\nprint(a + b + 3)\n",
                "import sys\nprint(sum(map(int, sys.stdin.read().split())) + 3)\n",
                "x = input().split()\nprint(int(x[0]) - int(x[1]))\n"]
    generation = run(script([fenced(p) for p in programs]), DISTINCT.model_copy(
        update={"repairs": 0}), task=task)
    assert [p.graded.passed for p in generation.versions] == [True, True, False]
    assert "program (stdin to stdout)" in _prompts(IMPLEMENT)[0]


def test_a_reasoning_model_is_read_from_its_final_answers(run: Callable[..., Generation]) -> None:
    """Each answer's reasoning holds a draft its check would refuse (or a wrong program):
    read from the final answers, the pipeline goes straight through."""
    def thinking(answer: dict[str, Any], draft: str) -> dict[str, Any]:
        return {"text": f"<think>\nA first try:\n{draft}\nNo, not that.\n</think>\n\n"
                        f"{answer['text']}"}

    code_plan = as_json({"solutions": [{"name": "p", "data_structures": ["int"],
                                        "steps": ["total = a + b + 3"]}]})["text"]
    generation = run(script(
        [thinking(fenced(code), f"```python\n{WRONG}```") for code in RIGHT[:3]],
        understanding=[thinking(as_json(UNDERSTOOD), '{"summary": ""}')],
        thought_answers=[thinking(thoughts(3), '{"thoughts": []}')],
        plan_answers=[thinking(plans(), code_plan)]))
    record = generation.record
    assert record.end == "complete" and record.retries == record.rollbacks == 0
    assert sorted(p.graded.candidate.code for p in generation.versions) == sorted(RIGHT[:3])
    assert [p.graded.passed for p in generation.versions] == [True] * 3
