"""LS, the structural similarity, SDP and MBCS."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from collections.abc import Callable, Sequence

import pytest

from pytest_req2rank.nversion import STRUCTURAL, ls, mbcs, sdp
from pytest_req2rank.nversion._diversity import (
    PairVerdict,
    PairwiseSimilarity,
    levenshtein_similarity,
    structural_similarity,
)

LOOP = "def total(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n"
RENAMED = "def add_up(values):\n    acc = 0\n    for v in values:\n        acc += v\n    return acc\n"
RECURSIVE = ("def total(xs):\n    if not xs:\n        return 0\n"
             "    return xs[0] + total(xs[1:])\n")
BUILTIN = "def total(xs):\n    return sum(xs)\n"
Measure = Callable[[Sequence[str]], PairwiseSimilarity]


@pytest.mark.parametrize("measure", [ls, structural_similarity])
def test_identical_code_is_fully_similar(measure: Measure) -> None:
    result = measure([LOOP, LOOP, LOOP])
    assert result.mean == 1 and result.diversity == 0 and len(result.pairs) == 3


@pytest.mark.parametrize("measure", [ls, structural_similarity])
def test_a_renamed_copy_is_closer_than_another_algorithm(measure: Measure) -> None:
    renamed = measure([LOOP, RENAMED]).mean
    assert renamed > measure([LOOP, RECURSIVE]).mean
    assert renamed > measure([LOOP, BUILTIN]).mean


def test_structural_similarity_ignores_names_and_keeps_its_own_name() -> None:
    result = structural_similarity([LOOP, RENAMED, BUILTIN])
    assert result.name == STRUCTURAL != "mbcs"
    assert result.pairs[0] == (0, 1, 1.0)
    assert result.pairs[1][2] < 0.5
    assert structural_similarity([LOOP, LOOP + "# a comment\n"]).mean == 1


def test_levenshtein_similarity_is_normalised_by_the_longer_text() -> None:
    assert levenshtein_similarity("abcd", "abce") == 0.75
    assert levenshtein_similarity("", "") == 1
    assert levenshtein_similarity("ab", "") == 0
    assert ls(["abcd", "abce", "abcd"]).mean == pytest.approx((0.75 + 1 + 0.75) / 3)


def test_pairwise_needs_two_versions() -> None:
    with pytest.raises(ValueError):
        ls([LOOP])
    with pytest.raises(ValueError):
        structural_similarity([])


def test_sdp_counts_parse_failures_apart() -> None:
    verdicts = [PairVerdict(i=0, j=1, same=True), PairVerdict(i=0, j=2, same=False),
                PairVerdict(i=1, j=2, same=None)]
    result = sdp(3, verdicts)
    assert result.sdp == 0.5 and result.judged == 2 and result.parse_failures == 1
    assert result.pairs == 3 and result.same == 1
    all_different = [PairVerdict(i=i, j=j, same=False) for i, j in [(0, 1), (0, 2), (1, 2)]]
    assert sdp(3, all_different).sdp == 1
    unjudged = sdp(2, [PairVerdict(i=0, j=1, same=None)])
    assert unjudged.sdp is None and unjudged.parse_failures == 1


def test_sdp_needs_one_verdict_per_pair() -> None:
    with pytest.raises(ValueError):
        sdp(3, [PairVerdict(i=0, j=1, same=True)])
    with pytest.raises(ValueError):
        sdp(2, [PairVerdict(i=0, j=1, same=True)] * 2)


def test_mbcs_is_the_mean_pairwise_cosine_of_given_vectors() -> None:
    result = mbcs([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    expected = (0 + math.sqrt(0.5) + math.sqrt(0.5)) / 3
    assert result.name == "mbcs" and result.mean == pytest.approx(expected)


@pytest.mark.parametrize("vectors", [[[1.0, 0.0]], [[1.0, 0.0], [1.0]], [[0.0, 0.0], [1.0, 0.0]],
                                     [[math.nan, 1.0], [1.0, 0.0]], [[], []]])
def test_mbcs_refuses_what_is_not_an_embedding(vectors: list[list[float]]) -> None:
    with pytest.raises(ValueError):
        mbcs(vectors)


def test_the_structural_similarity_does_not_depend_on_the_hash_seed() -> None:
    # CodeBLEU's data-flow merge lists names in set order, which PYTHONHASHSEED changes: the
    # names are read from their positions so that the same code has the same similarity.
    script = ("from pytest_req2rank.nversion import load_library\n"
              "from pytest_req2rank.nversion._diversity import structural_similarity\n"
              "entry = next(e for e in load_library() if e.task_id == 'HumanEval/56')\n"
              "print(structural_similarity([i.code for i in entry.implementations]).mean)\n")
    values = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             check=True, env={**os.environ, "PYTHONHASHSEED": seed}).stdout
              for seed in ("1", "2")}
    assert len(values) == 1, values
