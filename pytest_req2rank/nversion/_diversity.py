"""Diversity of N versions' code, pairwise: what works offline, and what is handed real data.

- **LS** (the DeQoG paper's Levenshtein similarity): the mean over pairs of
  1 − Levenshtein(a, b) / max(len(a), len(b)) on the code's text; diversity = 1 − LS.
- **Structural similarity** (CodeBLEU's syntax and data-flow match, made symmetric; offline,
  tree-sitter-python): per pair, the mean of (1) the share of the two programs' syntax
  subtrees (tree-sitter s-expressions: node types, no names) found in the other and (2) the
  share of their data-flow edges (variables renamed to canonical ones) found in the other;
  when neither program has a data flow, the syntax share alone. Renaming does not change it;
  a different algorithm does. It is NOT MBCS, which needs a code embedding model.
- **SDP** (semantic diversity proportion) = 1 − Σ S(cᵢ, cⱼ) / judged pairs, from a judge's
  verdicts per pair (S = 1: same approach); a pair whose answer could not be read or whose
  call failed is counted apart and left out of the sum and the denominator, never guessed.
- **MBCS** (mean pairwise cosine similarity of code embeddings): only over real embedding
  vectors handed to it; a bad vector is an error.

:mod:`._semantic` asks the judge and the embedding model for them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

import Levenshtein
from codebleu.dataflow_match import normalize_dataflow
from codebleu.parser import (
    DFG_python,
    index_to_code_token,
    remove_comments_and_docstrings,
    tree_to_token_index,
)
from codebleu.utils import get_tree_sitter_language
from pydantic import BaseModel, ConfigDict
from tree_sitter import Node, Parser

from ..models import SDPResult

STRUCTURAL = "codebleu-syntax-dataflow"
"""The name results give the structural similarity (never "MBCS")."""

# CodeBLEU's parser helpers carry no annotations; typed here by what they take and give.
_Span = tuple[tuple[int, int], tuple[int, int]]
"""A token's (row, column) start and end."""
_Edge = tuple[Any, ...]
"""A data-flow edge: name, token index, relation, parents' names, parents' indices."""
_strip_comments: Callable[[str, str], str] = remove_comments_and_docstrings
_normalised_flow: Callable[[list[_Edge]], list[Any]] = normalize_dataflow
_token_spans: Callable[[Node], list[_Span]] = tree_to_token_index
_token_text: Callable[[_Span, list[str]], str] = index_to_code_token
_python_flow: Callable[[Node, dict[_Span, tuple[int, str]], dict[str, Any]],
                       tuple[list[_Edge], dict[str, Any]]] = DFG_python


class PairwiseSimilarity(BaseModel):
    """A similarity over all pairs of N codes: its ``name``, the ``mean`` over pairs, and
    each pair's value (``pairs[k]`` is ``(i, j, value)``, i < j)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    mean: float
    pairs: tuple[tuple[int, int, float], ...]

    @property
    def diversity(self) -> float:
        return 1 - self.mean


class PairVerdict(BaseModel):
    """A judge's verdict on versions ``i`` and ``j``: ``same`` approach (True), different
    (False), or None when there is none: its answer could not be parsed (``call_failed``
    False) or its call failed (``call_failed`` True)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    i: int
    j: int
    same: bool | None
    call_failed: bool = False


def levenshtein_similarity(a: str, b: str) -> float:
    """1 − Levenshtein(a, b) / max(len(a), len(b)); two empty texts are identical (1)."""
    longest = max(len(a), len(b))
    return 1.0 if longest == 0 else 1 - Levenshtein.distance(a, b) / longest


def ls(codes: Sequence[str]) -> PairwiseSimilarity:
    """LS of ``codes`` (at least two)."""
    return _pairwise("levenshtein", codes, levenshtein_similarity)


def structural_similarity(codes: Sequence[str]) -> PairwiseSimilarity:
    """The structural similarity of ``codes`` (at least two; see the module)."""
    shapes = [_Shape.of(code) for code in codes]
    return _pairwise(STRUCTURAL, shapes, _Shape.similarity)


def sdp(n: int, verdicts: Sequence[PairVerdict], *, judge: str | None = None,
        reason: str | None = None) -> SDPResult:
    """SDP of ``n`` versions from one verdict per pair (each pair i < j < n exactly once),
    judged by ``judge``; ``reason``: the first failure, if any. No pair judged: ``failed``."""
    expected = set(combinations(range(n), 2))
    given = [(v.i, v.j) for v in verdicts]
    if n < 2 or len(given) != len(set(given)) or set(given) != expected:
        raise ValueError(f"SDP needs exactly one verdict for each of the {len(expected)} "
                         f"pairs of {n} versions")
    judged = [v for v in verdicts if v.same is not None]
    same = sum(1 for v in judged if v.same)
    calls = sum(1 for v in verdicts if v.same is None and v.call_failed)
    return SDPResult(status="measured" if judged else "failed", judge=judge,
                     sdp=round(1 - same / len(judged), 6) if judged else None,
                     pairs=len(expected), judged=len(judged), same=same,
                     parse_failures=len(verdicts) - len(judged) - calls, call_failures=calls,
                     reason=reason)


def mbcs(vectors: Sequence[Sequence[float]]) -> PairwiseSimilarity:
    """MBCS: the mean pairwise cosine similarity of real code embeddings (at least two, one
    dimension, finite, non-zero); anything else raises ``ValueError``."""
    rows = [[float(x) for x in vector] for vector in vectors]
    if len(rows) < 2 or len({len(row) for row in rows}) != 1 or not rows[0]:
        raise ValueError("MBCS needs at least two embedding vectors of one non-zero dimension")
    norms = [math.sqrt(math.fsum(x * x for x in row)) for row in rows]
    if any(not math.isfinite(x) for row in rows for x in row) or not all(norms):
        raise ValueError("an embedding vector is not finite, or is zero")

    def cosine(i: int, j: int) -> float:
        return math.fsum(a * b for a, b in zip(rows[i], rows[j])) / (norms[i] * norms[j])

    return _pairwise("mbcs", list(range(len(rows))), cosine)


def _pairwise(name: str, items: Sequence[Any], similarity: Callable[[Any, Any], float],
              ) -> PairwiseSimilarity:
    if len(items) < 2:
        raise ValueError("a pairwise similarity needs at least two versions")
    pairs = tuple((i, j, similarity(items[i], items[j]))
                  for i, j in combinations(range(len(items)), 2))
    return PairwiseSimilarity(name=name, mean=math.fsum(p[2] for p in pairs) / len(pairs),
                              pairs=pairs)


class _Shape:
    """A program's syntax subtrees (s-expressions) and normalised data-flow edges."""

    _parser: Parser | None = None

    def __init__(self, subtrees: list[str], flows: list[Any]) -> None:
        self.subtrees, self.flows = subtrees, flows

    @classmethod
    def of(cls, code: str) -> _Shape:
        try:
            code = _strip_comments(code, "python")
        except Exception:  # noqa: BLE001, S110 - tokenize's errors on broken code: keep it as is
            pass
        root = cls.parser().parse(code.encode("utf8")).root_node
        return cls(_subtrees(root), _normalised_flow(_data_flow(root, code)))

    @classmethod
    def parser(cls) -> Parser:
        if cls._parser is None:
            cls._parser = Parser(get_tree_sitter_language("python"))
        return cls._parser

    def similarity(self, other: _Shape) -> float:
        syntax = _shared(self.subtrees, other.subtrees)
        flows = _shared(self.flows, other.flows) if self.flows or other.flows else None
        return syntax if flows is None else (syntax + flows) / 2


def _shared(a: list[Any], b: list[Any]) -> float:
    """The share of the items of ``a`` and ``b`` found in the other (CodeBLEU's match, both
    ways); 1 when both are empty."""
    total = len(a) + len(b)
    if total == 0:
        return 1.0
    return (sum(item in b for item in a) + sum(item in a for item in b)) / total


def _subtrees(root: Node) -> list[str]:
    """CodeBLEU's syntax-match subtrees: the s-expression of every node with children."""
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        found.append(str(node))
        stack.extend(child for child in node.children if child.children)
    return found


def _data_flow(root: Node, code: str) -> list[tuple[Any, ...]]:
    """CodeBLEU's data-flow graph of ``code`` (its ``get_data_flow``), made deterministic:
    a parent's name is read from its position (CodeBLEU's own merge lists the names in set
    order, apart from their positions, so its result varied with the hash seed), parents are
    ordered by position, and edges are merged in a fixed order."""
    lines = code.split("\n")
    positions = _token_spans(root)
    index_to_code = {position: (k, _token_text(position, lines))
                     for k, position in enumerate(positions)}
    try:
        graph, _ = _python_flow(root, index_to_code, {})
    except Exception:  # noqa: BLE001 - CodeBLEU's own rule: an unanalysable program has no flow
        graph = []
    tokens = dict(index_to_code.values())
    graph = sorted(graph, key=lambda edge: (edge[1], edge[2], sorted(edge[4])))
    used = {edge[1] for edge in graph if edge[-1]} | {p for edge in graph for p in edge[-1]}
    merged: dict[int, tuple[str, int, str, dict[int, str]]] = {}
    for name, index, relation, _, where in graph:
        if index not in used:
            continue
        known = merged.get(index)
        links = dict(known[3]) if known else {}
        links.update((p, tokens[p]) for p in where)
        merged[index] = (name, index, relation, links)
    return [(name, index, relation, [links[p] for p in sorted(links)], sorted(links))
            for name, index, relation, links in merged.values()]
