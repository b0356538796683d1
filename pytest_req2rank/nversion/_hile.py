"""HILE (hierarchical isolation, local expansion): distinct algorithmic ideas (thought level),
plans per idea without code (solution level), code per plan (implementation level). Each
branch's prompt holds its own idea and plan only; the checks are computed here.

Temperatures follow the reference implementation (0.8, 0.7, 0.6 per level); a run temperature
above them wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from ..models import GenerationConfig, Task
from . import _prompting as prompts
from ._answers import (
    AnswerError,
    Solution,
    Solutions,
    Thought,
    Thoughts,
    Understanding,
    code_lines,
    parse_code,
    parse_json,
)
from ._asking import Asker
from ._diversity import levenshtein_similarity
from ._irqn import Candidate
from ._knowledge import FamilyKnowledge

THOUGHT_T, SOLUTION_T, IMPLEMENTATION_T = 0.8, 0.7, 0.6


@dataclass(frozen=True)
class Branch:
    """One idea of the thought level with its plans."""

    index: int
    thought: Thought
    solutions: tuple[Solution, ...]


def ideate(asker: Asker, understood: Understanding, knowledge: FamilyKnowledge, *,
           count: int, config: GenerationConfig, memory: Sequence[str]) -> list[Branch]:
    """The thought and solution levels: ``count`` distinct ideas, ``config.solutions`` plans
    each."""
    task = asker.task
    ideas = asker.checked(
        prompts.thoughts(task, understood, knowledge.as_data(), count, memory),
        lambda text: _distinct_thoughts(parse_json(text, Thoughts), count, config.theta_ident),
        temperature=THOUGHT_T, json_mode=True)
    branches = []
    for index, thought in enumerate(ideas):
        plans = asker.checked(
            prompts.solutions(task, understood, thought, knowledge.as_data(), config.solutions,
                              memory),
            lambda text: _plans(parse_json(text, Solutions), config.solutions),
            temperature=SOLUTION_T, json_mode=True)
        branches.append(Branch(index, thought, tuple(plans)))
    return branches


def implement(asker: Asker, branches: Sequence[Branch], knowledge: FamilyKnowledge, *,
              config: GenerationConfig, memory: Sequence[str], round_: int,
              found: list[Candidate]) -> list[Candidate]:
    """The implementation level: ``config.implementations`` programs per plan, the k-th one
    structured by the family's k-th control-flow pattern (shifted per plan), appended to
    ``found`` as they come (an error end keeps those written before it)."""
    task: Task = asker.task
    patterns = knowledge.control_flow
    for branch in branches:
        for s, solution in enumerate(branch.solutions):
            for i in range(config.implementations):
                flow = patterns[(branch.index + s + i) % len(patterns)]
                code = asker.checked(
                    prompts.implementation(task, branch.thought, solution, flow, memory),
                    lambda text: parse_code(text, task), temperature=IMPLEMENTATION_T)
                prefix = f"r{round_}." if round_ else ""
                found.append(Candidate(id=f"{prefix}t{branch.index}.s{s}.i{i}", code=code,
                                       thought=branch.thought.name, prompt=asker.last_prompt,
                                       response=asker.last_answer))
    return found


def _distinct_thoughts(answer: Thoughts, count: int, theta_ident: float) -> list[Thought]:
    ideas = answer.thoughts
    if len(ideas) < count:
        raise AnswerError(f"{len(ideas)} ideas given, {count} asked")
    ideas = ideas[:count]
    for a, b in combinations(range(count), 2):
        same_paradigm = ideas[a].paradigm.strip().lower() == ideas[b].paradigm.strip().lower()
        similarity = levenshtein_similarity(ideas[a].idea.lower(), ideas[b].idea.lower())
        if same_paradigm or similarity > theta_ident:
            why = "the same paradigm" if same_paradigm else f"similarity {similarity:.2f}"
            raise AnswerError(f"ideas {a} ({ideas[a].name}) and {b} ({ideas[b].name}) are not "
                              f"distinct ({why}); give each idea its own paradigm")
    return ideas


def _plans(answer: Solutions, count: int) -> list[Solution]:
    plans = answer.solutions
    if len(plans) < count:
        raise AnswerError(f"{len(plans)} plans given, {count} asked")
    for index, plan in enumerate(plans[:count]):
        code = code_lines(plan)
        if code:
            raise AnswerError(f"plan {index} ({plan.name}) contains code ({code[0][:80]!r}); "
                              "describe the steps in plain language")
    return plans[:count]
