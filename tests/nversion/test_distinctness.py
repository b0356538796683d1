"""The versions of a task are algorithmically distinct, not renamed copies.

Measure: :func:`normalised_ast_similarity`, difflib's ratio over the token sequences of the
normalised ASTs (identifiers renamed canonically, imports, annotations, docstrings and the
shared signature dropped). A renamed copy scores 1.0. Threshold: every pair below
:data:`MAX_PAIR_SIMILARITY` = 0.85. The highest pairs in the library are one-line bodies that
share the call scaffolding but not the algorithm (``len(set(s.lower()))`` against
``len(Counter(map(str.lower, s)))``: 0.83); the library's mean stays below
:data:`MAX_MEAN_SIMILARITY`.
"""

from __future__ import annotations

from itertools import combinations
from statistics import fmean

import pytest

from pytest_req2rank.nversion import normalised_ast_similarity
from pytest_req2rank.nversion._library import LibraryTask, normalised_ast

MAX_PAIR_SIMILARITY = 0.85
MAX_MEAN_SIMILARITY = 0.5


def test_a_renamed_copy_is_caught() -> None:
    original = ('def f(xs: list) -> int:\n    """Sum."""\n    total = 0\n'
                '    for x in xs:  # each\n        total += x\n    return total\n')
    renamed = 'def f(items):\n    acc = 0\n    for item in items:\n        acc += item\n    return acc\n'
    assert normalised_ast(original) == normalised_ast(renamed)
    assert normalised_ast_similarity(original, renamed) == 1.0
    other = "def f(xs):\n    return sum(xs)\n"
    assert normalised_ast_similarity(original, other) < MAX_PAIR_SIMILARITY


@pytest.mark.slow  # every pair of the library's versions parsed and compared (~15 s)
def test_every_pair_of_versions_differs(library: tuple[LibraryTask, ...]) -> None:
    too_close = []
    for task in library:
        for a, b in combinations(task.implementations, 2):
            assert normalised_ast(a.code) != normalised_ast(b.code), (task.task_id, a.name, b.name)
            score = normalised_ast_similarity(a.code, b.code)
            if score >= MAX_PAIR_SIMILARITY:
                too_close.append(f"{task.task_id} {a.name} ~ {b.name}: {score:.2f}")
    assert too_close == []


@pytest.mark.slow  # the library's mean pairwise similarity (~20 s)
def test_mean_pairwise_similarity(library: tuple[LibraryTask, ...]) -> None:
    scores = [normalised_ast_similarity(a.code, b.code) for task in library
              for a, b in combinations(task.implementations, 2)]
    mean = fmean(scores)
    print(f"\nlibrary mean pairwise structural similarity: {mean:.3f} over {len(scores)} pairs "
          f"(max {max(scores):.3f})")
    assert 0 < mean < MAX_MEAN_SIMILARITY
