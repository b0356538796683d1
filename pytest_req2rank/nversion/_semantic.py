"""The diversity measures that ask a model: SDP (an LLM judge per pair of versions) and MBCS
(a code embedding model), and the embedding similarity a generation step can ask with.

Each returns its result and the :class:`~pytest_req2rank.models.Usage` of the calls it made.
Nothing here makes a value up: a measure without its model is ``not_measured`` (with the
reason), a failed call is counted (SDP) or is the result's error (MBCS).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import combinations
from typing import Protocol

from ..judging import ApproachJudge
from ..models import MBCSResult, SDPResult, Usage
from ..providers import Embedding, ProviderError
from ._diversity import PairVerdict, mbcs, sdp

MAX_PAIRS_AT_ONCE = 8
"""Pairs of one task asked at the same time (the process's call gate caps the calls in
flight across everything)."""


class Embedder(Protocol):
    """What embeds texts: :class:`~pytest_req2rank.providers.LiteLLMProvider`."""

    model: str

    def embed(self, texts: Sequence[str], *, timeout_s: float = ...) -> Embedding: ...


@dataclass(frozen=True)
class SemanticMeasures:
    """How a run measures SDP and MBCS: the approach ``judge`` (None: SDP is not measured,
    for ``sdp_reason``, default :data:`SDP_NOT_MEASURED`) and the ``embedder`` (None: MBCS is
    not measured)."""

    judge: ApproachJudge | None = None
    embedder: Embedder | None = None
    sdp_reason: str = ""
    timeout_s: float = 120.0


SDP_NOT_MEASURED = "no LLM judge: pass --r2r-sdp-judge=MODEL, or an LLM in --r2r-judges"
MBCS_NOT_MEASURED = "no embedding model: pass --r2r-embedding-model=MODEL"


def measure_sdp(codes: Sequence[str], requirement: str, judge: ApproachJudge | None,
                reason: str = SDP_NOT_MEASURED) -> tuple[SDPResult, Usage]:
    """SDP of ``codes`` with one verdict of ``judge`` per pair (asked at once, a few at a
    time); not measured without a judge."""
    n = len(codes)
    pairs = list(combinations(range(n), 2))
    if judge is None:
        return SDPResult(status="not_measured", sdp=None, pairs=len(pairs), judged=0, same=0,
                         parse_failures=0, reason=reason), Usage()
    with ThreadPoolExecutor(max_workers=max(1, min(len(pairs), MAX_PAIRS_AT_ONCE)),
                            thread_name_prefix="r2r-sdp") as pool:
        answers = list(pool.map(lambda pair: judge.compare(requirement, codes[pair[0]],
                                                           codes[pair[1]]), pairs))
    verdicts = [PairVerdict(i=i, j=j, same=a.same, call_failed=a.failure == "call_failed")
                for (i, j), a in zip(pairs, answers, strict=True)]
    first = next(((i, j, a.error) for (i, j), a in zip(pairs, answers, strict=True)
                  if a.error is not None), None)
    reason_text = None if first is None else f"pair ({first[0]}, {first[1]}): {first[2]}"
    usage = sum((a.usage for a in answers), Usage())
    return sdp(n, verdicts, judge=judge.name, reason=reason_text), usage


def measure_mbcs(codes: Sequence[str], embedder: Embedder | None, *, timeout_s: float = 120.0
                 ) -> tuple[MBCSResult, Usage]:
    """MBCS of ``codes`` from one embedding call; a failed call or a vector that is no
    embedding is the result's error. Not measured without an embedding model."""
    if embedder is None:
        return MBCSResult(status="not_measured", reason=MBCS_NOT_MEASURED), Usage()
    try:
        embedding = embedder.embed(list(codes), timeout_s=timeout_s)
    except ProviderError as exc:
        usage = Usage(calls=exc.attempts, retries=max(exc.attempts - 1, 0))
        return MBCSResult(status="failed", model=embedder.model,
                          reason=f"{exc.kind}: {exc.message}"), usage
    try:
        value = mbcs(embedding.vectors).mean
    except ValueError as exc:
        return MBCSResult(status="failed", model=embedder.model, reason=str(exc)), embedding.usage
    return MBCSResult(status="measured", model=embedder.model, mbcs=round(value, 6)), \
        embedding.usage


class EmbeddingSimilarity:
    """``similarity(code, others)``: the largest cosine similarity of ``code``'s embedding to
    those of ``others`` (0 when there are none), from a real embedding model. Each text is
    embedded once per instance; :attr:`usage` sums the calls. A failed call raises
    :class:`~pytest_req2rank.providers.ProviderError`: the caller decides, no value is made up.
    Thread-safe."""

    def __init__(self, embedder: Embedder, *, timeout_s: float = 120.0) -> None:
        self.embedder, self.timeout_s = embedder, timeout_s
        self.usage = Usage()
        self._vectors: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def __call__(self, code: str, others: Sequence[str]) -> float:
        if not others:
            return 0.0
        vectors = self._embedded([code, *others])
        return max(_cosine(vectors[code], vectors[other]) for other in others)

    def _embedded(self, texts: Sequence[str]) -> dict[str, list[float]]:
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            embedding = self.embedder.embed(missing, timeout_s=self.timeout_s)
            with self._lock:
                self.usage = self.usage + embedding.usage
                self._vectors.update(zip(missing, embedding.vectors, strict=True))
        with self._lock:
            return {t: self._vectors[t] for t in texts}


def embedding_similarity(embedder: Embedder, *, timeout_s: float = 120.0
                         ) -> EmbeddingSimilarity:
    """A ``similarity(code, others) -> float`` over ``embedder`` (see
    :class:`EmbeddingSimilarity`)."""
    return EmbeddingSimilarity(embedder, timeout_s=timeout_s)


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    norm = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    if len(a) != len(b) or not norm:
        raise ValueError("embedding vectors of different dimensions, or a zero vector")
    return math.fsum(x * y for x, y in zip(a, b, strict=True)) / norm
