"""A model's scores over time as an inline SVG (drawn by the model page's template): the
ranked submissions' scores as a line in their CI95 band, every submission a dot by status,
in the order received, evenly spaced (runs submitted minutes apart stay apart), the first
and last dates under the axis."""

from __future__ import annotations

from typing import Any

from ._submissions import RANKED_STATUSES

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 40, 16, 12, 28
"""The plot area's margins: the score axis on the left, the dates below."""
PAD = 8
"""Space between the plot area's sides and the first and last dot."""


def _y(score: float) -> float:
    return round(TOP + (HEIGHT - TOP - BOTTOM) * (1 - max(0.0, min(100.0, score)) / 100), 1)


def history_chart(submissions: list[dict[str, Any]]) -> dict[str, Any]:
    """The chart's geometry from ``submissions`` (summaries, any order): ``dots`` (every
    submission), ``line`` (polyline points of the ranked ones, oldest first), ``band``
    (polygon points of their CI95), ``ticks`` (score axis) and the first and last dates."""
    runs = sorted(submissions, key=lambda run: (run["received_at"], run["id"]))
    moments = list(range(len(runs)))
    inner = WIDTH - LEFT - RIGHT - 2 * PAD

    def x(position: int) -> float:
        if len(runs) < 2:
            return round(LEFT + (WIDTH - LEFT - RIGHT) / 2, 1)
        return round(LEFT + PAD + inner * position / (len(runs) - 1), 1)

    dots = [{"x": x(moment), "y": _y(run["overall"]), "id": run["id"], "status": run["status"],
             "score": run["overall"], "at": run["received_at"]}
            for run, moment in zip(runs, moments, strict=True)]
    ranked = [(x(moment), run) for run, moment in zip(runs, moments, strict=True)
              if run["status"] in RANKED_STATUSES]
    line = " ".join(f"{px},{_y(run['overall'])}" for px, run in ranked)
    banded = [(px, run["ci95"]) for px, run in ranked
              if run["ci95"][0] is not None and run["ci95"][1] is not None]
    band = ""
    if banded:
        if len(banded) == 1:  # one run: a band as wide as a dot
            (px, ci), = banded
            banded = [(px - 4, ci), (px + 4, ci)]
        upper = [f"{px},{_y(ci[1])}" for px, ci in banded]
        lower = [f"{px},{_y(ci[0])}" for px, ci in reversed(banded)]
        band = " ".join(upper + lower)
    return {
        "width": WIDTH, "height": HEIGHT, "left": LEFT, "right": WIDTH - RIGHT,
        "bottom": HEIGHT - BOTTOM,
        "ticks": [{"y": _y(score), "label": score} for score in (0, 25, 50, 75, 100)],
        "dots": dots, "line": line, "band": band,
        "first": runs[0]["received_at"][:10] if runs else "",
        "last": runs[-1]["received_at"][:10] if runs else "",
    }
