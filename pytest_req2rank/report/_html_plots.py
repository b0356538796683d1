"""The HTML report's plots: matplotlib figures rendered to inline SVG (no JavaScript, no
network; text stays text, so labels taken from the run are escaped by the SVG writer)."""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ParamSpec

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

STATUS_COLORS = {
    "success": "#2e7d32", "wrong_answer": "#ef6c00", "syntax_error": "#6a1b9a",
    "runtime_error": "#c62828", "timeout": "#8d6e63", "truncated": "#ad1457", "api_error": "#78909c",
    "sandbox_error": "#37474f",
}
_RC: dict[Any, Any] = {
    "svg.fonttype": "none",        # text as <text>: small, selectable, the browser's font
    "svg.hashsalt": "req2rank",    # stable element ids: the same run gives the same file
    "text.parse_math": False,      # a '$' in a dataset or judge name is text, not TeX
    "font.size": 9,
    "font.family": "sans-serif",
    "axes.spines.top": False,
    "axes.spines.right": False,
}
_XML_PROLOGUE = re.compile(r"^.*?(?=<svg)", re.DOTALL)
LABEL = 36
"""Characters of a label (dataset, skill, judge) a plot shows; the tables have them whole."""


def _label(text: str) -> str:
    return text if len(text) <= LABEL else text[:LABEL - 1] + "…"


def _figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure  # the report's own import: only a report loads it

    return Figure(figsize=(width, height), layout="constrained")


def _svg(fig: Figure, label: str) -> str:
    """The figure as an ``<svg>`` element for inlining, labelled for screen readers."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    svg = _XML_PROLOGUE.sub("", buffer.getvalue(), count=1)
    return svg.replace("<svg ", f'<svg role="img" class="plot" data-plot="{label}" ', 1)


P = ParamSpec("P")


def _styled(draw: Callable[P, str]) -> Callable[P, str]:
    """Run a plot function with the report's matplotlib settings (fonts, no TeX)."""

    @functools.wraps(draw)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> str:
        import matplotlib

        with matplotlib.rc_context(_RC):
            return draw(*args, **kwargs)

    return wrapper


@_styled
def dimensions_plot(rows: Sequence[tuple[str, float, float | None, float | None]]) -> str:
    """Dimension means with their 95 % intervals: (name, mean, low, high)."""
    fig = _figure(6.0, 0.45 * len(rows) + 0.8)
    ax = fig.add_subplot()
    names = [row[0] for row in rows][::-1]
    means = [row[1] for row in rows][::-1]
    ax.barh(names, means, color="#1565c0", height=0.6)
    for y, (_, mean, low, high) in enumerate(rows[::-1]):
        if low is not None and high is not None:
            ax.errorbar(mean, y, xerr=[[mean - low], [high - mean]], color="black", capsize=3,
                        linewidth=1)
        ax.text(101, y, f"{mean:.1f}", va="center", fontsize=8)
    ax.set_xlim(0, 108)
    ax.set_xticks(range(0, 101, 20))
    ax.set_xlabel("score (0-100), bars: 95% interval")
    return _svg(fig, "dimensions")


@_styled
def model_dimensions_plot(
        rows: Mapping[str, Sequence[tuple[str, float, float | None, float | None]]]) -> str:
    """Each model's dimension means with their 95 % intervals, a bar per model within each
    dimension: ``{model: [(name, mean, low, high), ...]}``."""
    names = list(dict.fromkeys(row[0] for model_rows in rows.values() for row in model_rows))
    count = len(rows)
    fig = _figure(6.4, (0.22 * count + 0.2) * len(names) + 1.2)
    ax = fig.add_subplot()
    height = 0.8 / count
    for index, (model, model_rows) in enumerate(rows.items()):
        color = GROUP_COLORS[index % len(GROUP_COLORS)]
        for name, mean, low, high in model_rows:
            y = names.index(name) - 0.4 + (index + 0.5) * height
            ax.barh(y, mean, height=height * 0.9, color=color,
                    label=_label(model) if name == model_rows[0][0] else None)
            if low is not None and high is not None:
                ax.errorbar(mean, y, xerr=[[mean - low], [high - mean]], color="black",
                            capsize=2, linewidth=0.8)
            ax.text(101, y, f"{mean:.1f}", va="center", fontsize=7)
    ax.set_yticks(range(len(names)), [_label(n) for n in names])
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.set_xlim(0, 108)
    ax.set_xticks(range(0, 101, 20))
    ax.set_xlabel("score (0-100), bars: 95% interval")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=min(count, 3),
              frameon=False, fontsize=8)
    return _svg(fig, "dimensions")


@_styled
def heatmap_plot(skills: Sequence[str], complexities: Sequence[str],
                 cells: Mapping[tuple[str, str], tuple[float, int]]) -> str:
    """Mean item score per skill (rows) and complexity (columns), with the items counted."""
    import numpy as np

    fig = _figure(1.2 * len(complexities) + 2.4, 0.38 * len(skills) + 1.0)
    ax = fig.add_subplot()
    grid = np.full((len(skills), len(complexities)), np.nan)
    for (skill, complexity), (mean, _) in cells.items():
        grid[skills.index(skill), complexities.index(complexity)] = mean
    image = ax.imshow(np.ma.masked_invalid(grid), cmap="RdYlGn", vmin=0, vmax=100,
                      aspect="auto")
    ax.set_xticks(range(len(complexities)), list(complexities))
    ax.set_yticks(range(len(skills)), [_label(s) for s in skills])
    for (skill, complexity), (mean, count) in cells.items():
        ax.text(complexities.index(complexity), skills.index(skill), f"{mean:.0f}\nn={count}",
                ha="center", va="center", fontsize=8)
    ax.spines[:].set_visible(False)
    fig.colorbar(image, ax=ax, label="mean score", shrink=0.8)
    return _svg(fig, "heatmap")


@_styled
def status_plot(counts: Mapping[str, Mapping[str, int]]) -> str:
    """Items per status, a stacked bar per dataset (share of the dataset's items)."""
    datasets = list(counts)
    fig = _figure(6.4, 0.5 * len(datasets) + 1.3)
    ax = fig.add_subplot()
    left = [0.0] * len(datasets)
    for status, color in STATUS_COLORS.items():
        shares = []
        for dataset in datasets:
            total = sum(counts[dataset].values()) or 1
            shares.append(100 * counts[dataset].get(status, 0) / total)
        if any(shares):
            ax.barh(range(len(datasets)), shares, left=left, color=color, label=status,
                    height=0.6)
            left = [a + b for a, b in zip(left, shares, strict=True)]
    ax.set_yticks(range(len(datasets)), [_label(d) for d in datasets])
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of the dataset's items")
    ax.invert_yaxis()
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35 if len(datasets) < 3 else -0.15),
              ncol=4, frameon=False, fontsize=8)
    return _svg(fig, "status")


@_styled
def pass_ratio_plot(ratios: Mapping[str, Sequence[float]], stacked: bool = True) -> str:
    """Histogram of the items' hidden-test pass ratio, a series per key (dataset, or model):
    stacked, or side by side."""
    fig = _figure(6.4, 2.6)
    ax = fig.add_subplot()
    bins = [i / 10 for i in range(11)]
    ax.hist(list(ratios.values()), bins=bins, stacked=stacked,
            label=[_label(d) for d in ratios], edgecolor="white")
    from matplotlib.ticker import MaxNLocator

    ax.set_xlim(0, 1)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("pass ratio (tests passed / tests run)")
    ax.set_ylabel("items")
    if len(ratios) > 1:
        ax.legend(frameon=False, fontsize=8)
    return _svg(fig, "pass-ratio")


@_styled
def judges_plot(scores: Mapping[str, Sequence[float]]) -> str:
    """Each judge's overall scores over the items (box: quartiles; triangle: mean; whiskers:
    1.5 IQR, outliers not drawn: a point per item would grow the file with the run)."""
    judges = list(scores)
    fig = _figure(6.4, 0.5 * len(judges) + 1.0)
    ax = fig.add_subplot()
    data = [list(scores[judge]) or [float("nan")] for judge in judges]
    ax.boxplot(data, orientation="horizontal", tick_labels=[_label(j) for j in judges],
               showmeans=True, showfliers=False, widths=0.5)
    ax.set_xlim(0, 100)
    ax.set_xlabel("judge's overall score per item")
    ax.invert_yaxis()
    return _svg(fig, "judges")


@_styled
def latency_plot(series: Mapping[str, Sequence[float]]) -> str:
    """Per-item time of each phase (box plot, seconds, log scale when it spans decades)."""
    positive = [v for values in series.values() for v in values if v > 0]
    log = bool(positive) and max(positive) / min(positive) > 100
    # on a log scale a phase that took no time (code that did not parse) has no place
    data = {name: [v for v in values if v > 0 or not log] for name, values in series.items()}
    names = [name for name, values in data.items() if values]
    fig = _figure(6.4, 0.5 * len(names) + 1.0)
    ax = fig.add_subplot()
    ax.boxplot([data[name] for name in names], orientation="horizontal",
               tick_labels=[_label(name) for name in names],
               showmeans=True, showfliers=False, widths=0.5)
    if log:
        from matplotlib.ticker import FuncFormatter

        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(_seconds))
    ax.set_xlabel("seconds per item")
    ax.invert_yaxis()
    return _svg(fig, "latency")


def _seconds(value: float, _position: object = None) -> str:
    return f"{1000 * value:g} ms" if value < 1 else f"{value:g} s"


@_styled
def patterns_plot(rows: Sequence[tuple[str, float, float, float]]) -> str:
    """FR, MCR and CCR per fault pattern: (pattern, fr, mcr, ccr)."""
    fig = _figure(6.4, 2.6)
    ax: Axes = fig.add_subplot()
    width = 0.27
    xs = range(len(rows))
    for offset, (name, index, color) in enumerate(
            (("FR", 1, "#c62828"), ("MCR", 2, "#2e7d32"), ("CCR", 3, "#1565c0"))):
        ax.bar([x + (offset - 1) * width for x in xs], [row[index] for row in rows], width,
               label=name, color=color)
    ax.set_xticks(list(xs), [row[0] for row in rows], rotation=30, ha="right")
    ax.set_ylim(0, 1)
    ax.legend(frameon=False, ncol=3, fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0))
    return _svg(fig, "patterns")


GROUP_COLORS = ("#1565c0", "#ef6c00", "#2e7d32", "#6a1b9a", "#c62828", "#00838f")
"""A group's colour (cycled beyond six groups); a group's models share it."""


@_styled
def ranking_plot(rows: Sequence[tuple[str, float, float, float, int, int, int, int]]) -> str:
    """Models best first (top): on the left each score with its CI, on the right its rank
    (dot) and rank interval (bar); (model, score, low, high, rank, rank_low, rank_high,
    group). The models of a group share a colour; groups after the first are shaded apart
    (a line between two groups: the data separate every model above it from every one below)."""
    fig = _figure(7.2, 0.42 * len(rows) + 1.2)
    scores, ranks = fig.subplots(1, 2, sharey=True, width_ratios=(3, 2))
    count = len(rows)
    for y, (_, score, low, high, rank, rank_low, rank_high, group) in enumerate(rows):
        color = GROUP_COLORS[(group - 1) % len(GROUP_COLORS)]
        scores.errorbar(score, y, xerr=[[score - low], [high - score]], fmt="o", color=color,
                        capsize=3, linewidth=1.2, markersize=5)
        # the bar spans each rank of the interval whole: 1-1 is one rank wide
        ranks.plot([rank_low - 0.35, rank_high + 0.35], [y, y], color=color, linewidth=5,
                   alpha=0.35, solid_capstyle="butt")
        ranks.plot(rank, y, "o", color=color, markersize=6)
    for y in range(1, count):
        if rows[y][7] != rows[y - 1][7]:
            for ax in (scores, ranks):
                ax.axhline(y - 0.5, color="#5b6570", linewidth=0.8, linestyle="--")
    scores.set_yticks(range(count), [_label(row[0]) for row in rows])
    scores.set_ylim(count - 0.5, -0.5)
    scores.set_xlim(-3, 103)  # a score of 0 or 100 drawn whole
    scores.set_xticks(range(0, 101, 20))
    scores.set_xlabel("score (0-100), bars: 95% CI")
    ranks.set_xlim(0.5, count + 0.5)
    ranks.set_xticks(range(1, count + 1))
    ranks.set_xlabel("rank, bar: 95% rank interval")
    ranks.tick_params(axis="y", left=False)
    return _svg(fig, "ranking")
