"""The HTML report at 1,000 items: its size, the time to render and write it, and the time
Chromium takes to open it, filter it and open an item; the plots drawn with matplotlib
(made: the report's whole view, of which the plots take most) (inline
SVG, what the report uses) against the same plots drawn with plotly (its JavaScript inlined,
``include_plotlyjs=True``), when plotly is installed.

    python tests/perf/bench_html.py [ITEMS]

The document is a real offline run (``r2r/reference``, dynamic suite, judged by
``r2r/static``) whose items are repeated up to ITEMS (default 1000) with deterministic other
statuses and scores, and its summary built again from them. Baselines, measured in the same
run: writing the results JSON of the same document (for render + write), and Chromium opening
that JSON file (for opening the report). Needs Playwright and /usr/bin/chromium.

Not collected (no ``test_`` prefix)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_req2rank.models import STATUSES, ItemResult
from pytest_req2rank.report import (
    ResultsDocument,
    build_summary,
    render_html,
    write_html,
    write_results,
)
from pytest_req2rank.report._html_view import build_view

BENCHMARK = Path(__file__).parents[2] / "benchmarks" / "test_benchmark.py"
CHROMIUM = "/usr/bin/chromium"


def real_run(directory: Path, rounds: int = 20) -> dict[str, Any]:
    (directory / "test_benchmark.py").write_text(BENCHMARK.read_text())
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    f"--r2r-rounds={rounds}", "--r2r-seed=7", "--r2r-json=seed.json",
                    str(directory / "test_benchmark.py")],
                   cwd=directory, capture_output=True, check=False)
    return json.loads((directory / "seed.json").read_text())  # type: ignore[no-any-return]


def scaled(seed: dict[str, Any], n: int) -> dict[str, Any]:
    """The run's items repeated to ``n``, a third of them with another status and score."""
    rng = random.Random(1)
    items = []
    for index in range(n):
        item = ItemResult.model_validate(seed["items"][index % len(seed["items"])])
        update: dict[str, Any] = {"item_id": f"{item.item_id}-{index}",
                                  "cluster": f"{item.cluster}-{index // 3}"}
        if rng.random() < 0.35:
            status = rng.choice(STATUSES[1:5])
            ratio = rng.random() * 0.9
            update |= {"status": status, "pass_ratio": ratio,
                       "score": None if item.score is None else round(item.score * ratio, 1)}
        items.append(item.model_copy(update=update))
    document = ResultsDocument.model_validate(seed)
    summary = build_summary(items, planned=n, wall_time_s=document.summary.wall_time_s, seed=7)
    return ResultsDocument(run=document.run, summary=summary, items=items).model_dump(mode="json")


def timed(action: Callable[[], Any], repeat: int = 3) -> float:
    """The best of ``repeat`` wall times, seconds."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - t0)
    return best


def plotly_page(view: dict[str, Any], document: dict[str, Any]) -> str:
    """The report's plots drawn with plotly instead, in one self-contained page."""
    import plotly.graph_objects as go

    items = document["items"]
    figures = [
        go.Figure(go.Bar(y=[r[0] for r in view["dimensions"]["rows"]],
                         x=[r[1] for r in view["dimensions"]["rows"]], orientation="h")),
        go.Figure(go.Histogram(x=[i["pass_ratio"] for i in items], nbinsx=10)),
        go.Figure([go.Bar(name=s, y=["dynamic"], x=[sum(i["status"] == s for i in items)],
                          orientation="h") for s in STATUSES]),
        go.Figure([go.Box(x=[i["timings"][k] for i in items], name=k)
                   for k in ("generation_s", "execution_s", "total_s")]),
    ]
    parts = [fig.to_html(full_html=False, include_plotlyjs=index == 0)
             for index, fig in enumerate(figures)]
    return "<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>" + "".join(parts) + \
        "</body></html>"


def svg_page(view: dict[str, Any]) -> str:
    svgs = [view["dimensions"]["svg"], view["pass_ratio"], view["status_plot"],
            view["usage"]["svg"]]
    return "<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>" + "".join(svgs) + \
        "</body></html>"


def main(n: int = 1000) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        document = scaled(real_run(root), n)
        results, report = root / "results.json", root / "report.html"
        parsed = ResultsDocument.model_validate(document)
        json_s = timed(lambda: write_results(parsed, results))
        html_s = timed(lambda: write_html(document, report))
        print(f"{n} items | results JSON {results.stat().st_size / 1e6:.2f} MB written in "
              f"{json_s * 1000:.0f} ms (baseline)")
        print(f"  HTML report {report.stat().st_size / 1e6:.2f} MB rendered and written in "
              f"{html_s * 1000:.0f} ms: {html_s / json_s:.1f}x the JSON write, "
              f"{report.stat().st_size / results.stat().st_size:.2f}x its size")
        view = build_view(parsed)
        svg_s = timed(lambda: svg_page(build_view(parsed)), repeat=1)
        pages = {"matplotlib SVG": (svg_page(view), svg_s)}
        try:
            pages["plotly inlined JS"] = (plotly_page(view, document),
                                          timed(lambda: plotly_page(view, document), repeat=1))
        except ImportError:
            print("  plotly is not installed: its comparison is left out")
        for name, (text, _) in pages.items():
            (root / f"{name.split()[0]}.html").write_text(text)
        assert render_html(document)  # warm, for the browser
        browser_times(root, results, report, pages)


def browser_times(root: Path, results: Path, report: Path,
                  pages: dict[str, tuple[str, float]]) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})

        def open_(path: Path) -> float:
            return timed(lambda: (page.goto(path.as_uri(), wait_until="load"),
                                  page.evaluate("new Promise(r => requestAnimationFrame(r))")))

        baseline = open_(results)
        print(f"  Chromium opens the results JSON in {baseline * 1000:.0f} ms (baseline)")
        opened = open_(report)
        print(f"  Chromium opens the report in {opened * 1000:.0f} ms: "
              f"{opened / baseline:.1f}x the JSON")
        page.goto(report.as_uri())
        filtered = page.evaluate("""() => {
            const t0 = performance.now();
            const select = document.getElementById('filter-status');
            select.value = 'wrong_answer'; select.dispatchEvent(new Event('change'));
            document.body.offsetHeight;
            return performance.now() - t0; }""")
        detail = page.evaluate("""() => {
            const t0 = performance.now();
            document.querySelector('#item-table tbody tr:not([hidden]) button').click();
            document.body.offsetHeight;
            return performance.now() - t0; }""")
        print(f"  filter by status {filtered:.0f} ms | open an item {detail:.0f} ms")
        for name, (text, render_s) in pages.items():
            path = root / f"{name.split()[0]}.html"
            load = open_(path)
            print(f"  plots alone, {name:<17}: {len(text) / 1e6:6.2f} MB, made in "
                  f"{render_s * 1000:5.0f} ms, opened in {load * 1000:5.0f} ms "
                  f"({load / baseline:.2f}x the JSON)")
        browser.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
