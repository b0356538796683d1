"""The generator's three prompts (draft → adversarial self-review → structured output).

Each stage's user message starts with ``Stage N of 3`` so scripted providers can
tell them apart; a repeated stage 3 starts with ``Stage 3 of 3, again``.
"""

from __future__ import annotations

import json

from ..models import COMPLEXITIES, SKILLS, ProjectRequirement
from ..providers import Message
from ._domains import setting_text
from ._structured import requirement_schema

PROMPT_VERSION = "r2r-generator-v2"
"""Part of the response-cache key: change it whenever a prompt changes."""

SYSTEM = (
    "You write requirements for a coding benchmark. A model under test will implement your "
    "requirement in Python; hidden tests you write decide whether it succeeded, and a reference "
    "solution you write proves the tests right. Requirements must be unambiguous, implementable "
    "within their stated scope, measurable by automated tests, and original: never a restatement "
    "of a well-known benchmark or textbook exercise."
)


def draft_messages(req: ProjectRequirement, *, rejected: str | None = None) -> list[Message]:
    """Stage 1: a fresh draft from the matrix cell, the template requirement and the domain."""
    meta = req.metadata
    level = COMPLEXITIES[meta.complexity]
    skills = "\n".join(f"- {s}: {SKILLS[s]}" for s in meta.skills)
    brief = {**req.brief(), "evaluationGuidance": req.guidance.model_dump(mode="json")}
    template = json.dumps(brief, indent=2, ensure_ascii=False)
    setting = setting_text(meta.domain, meta.scenario) if meta.domain and meta.scenario else ""
    text = (
        "Stage 1 of 3: draft.\n\n"
        f"Skill matrix cell. Skills:\n{skills}\n"
        f"Complexity {level.code} ({level.name}): {level.definition}; scope: {level.scope}.\n"
        f"Domain {meta.domain}, scenario {meta.scenario}. {setting}\n\n"
        "Template requirement (write a new variant of it for this domain and scenario: keep its "
        "skills, scope and kind of interface, change the domain nouns, rules and numbers so "
        f"the result is a different problem):\n{template}\n\n"
        "Write the draft in prose: a title; a description; functional requirements FR-1, FR-2, "
        "… each with an acceptance criterion and a priority (must, should, nice-to-have); "
        "constraints; the exact Python interface (file names, signatures, exceptions); and the "
        "deliverables. Python standard library only."
    )
    if rejected:
        text += f"\n\nAn earlier attempt was rejected: {rejected}. Avoid that this time."
    return [Message(role="system", content=SYSTEM), Message(role="user", content=text)]


REVIEW = (
    "Stage 2 of 3: adversarial self-review.\n\n"
    "Attack your draft. Where is it ambiguous (two reasonable implementations would disagree)? "
    "What is not implementable within the scope? Which acceptance criteria cannot be checked "
    "by an automated test that compares returned values or raised exceptions? List every "
    "problem you find, then write the revised draft in full."
)


def structure_message(req: ProjectRequirement, *, min_tests: int) -> str:
    """Stage 3: the revised draft as one JSON object with hidden tests and a reference solution."""
    meta = req.metadata
    example = [
        {"name": p.name, "code": p.code, "priority": "must",
         **({"raises": p.raises} if p.raises else {"expect": p.expect})}
        for p in req.probes[:2]
    ]
    return (
        "Stage 3 of 3: structured output.\n\n"
        "Answer with one JSON object and nothing else, valid against this JSON Schema:\n"
        f"{json.dumps(requirement_schema(), separators=(',', ':'))}\n\n"
        f"metadata must be skills {list(meta.skills)}, complexity {meta.complexity!r}, domain "
        f"{meta.domain!r}, scenario {meta.scenario!r}.\n"
        "referenceSolution maps each file path to its complete content and must pass every "
        "hidden test. setup is Python run before each test (import what the tests use from the "
        "solution's modules). Each hidden test's code runs in a fresh namespace after setup and "
        "either assigns the observed value to `result` (plain JSON data: None, bool, int, float, "
        "str, lists, dicts with string keys), with `expect` the value a correct solution gives, "
        "or raises, with `raises` naming the exception class. Never put the expected value in "
        "the code. "
        f"Write at least {min_tests} tests: every must requirement, edge cases and error "
        "handling, each able to fail for a plausible wrong implementation.\n"
        f"Tests in this form, from the template: {json.dumps(example, ensure_ascii=False)}"
    )


def retry_message(problems: list[str]) -> str:
    """Stage 3 again, after an answer that could not be used."""
    listed = "\n".join(f"- {p}" for p in problems[:20])
    return ("Stage 3 of 3, again: your answer could not be used:\n"
            f"{listed}\nAnswer with the corrected JSON object only.")
