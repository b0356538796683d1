"""The HTML report rendered from real runs' results documents: what each run's report shows
and leaves out, its N-version tables, escaping of hostile run content, and the plugin's
``--r2r-html`` in its three spellings."""

from __future__ import annotations

import copy
import functools
import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from pytest_req2rank.report import InvalidResults, render_html, write_html

from .report_runs import HOSTILE, JUDGED_MODELS, RANKED, Run

SECTIONS = ("overview", "ranking", "dimensions", "skills", "statuses", "pass-ratio", "judges", "usage",
            "nversion", "items")


class Page(HTMLParser):
    """The parts of a report the tests look at: sections, scripts, plots, table rows."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.scripts: list[dict[str, str | None]] = []
        self.plots: list[str] = []
        self.handlers: list[str] = []
        self.rows: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        self.handlers += [name for name, _ in attrs if name.startswith("on")]
        if tag == "script":
            self.scripts.append(found)
        if tag == "svg" and found.get("data-plot"):
            self.plots.append(str(found["data-plot"]))
        if tag == "table":
            self._table = found.get("id")
        if tag == "tr" and self._table:
            self._row = []
        if tag == "td" and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        if tag == "tr" and self._row and self._table:
            self.rows.setdefault(self._table, []).append(self._row)
            self._row = None
        if tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def details_of(text: str) -> list[dict[str, Any]]:
    """The item details the report embeds (what its script shows on a click)."""
    match = re.search(r'<script type="application/json" id="r2r-details">(.*?)</script>', text,
                      re.DOTALL)
    assert match, "no item details in the report"
    return json.loads(match.group(1))  # type: ignore[no-any-return]


@functools.cache
def report_of(results: Path) -> str:
    """The report of a run's results JSON, rendered once per test process."""
    return render_html(json.loads(results.read_text(encoding="utf-8")))


def sections(page: Page) -> set[str]:
    return {name for name in SECTIONS if name in page.ids}


def test_each_run_wrote_its_report_where_asked_and_said_where(runs: dict[str, Run]) -> None:
    # --r2r-html alone, --r2r-html=PATH and R2R_HTML=1 with --r2r-json
    for run in runs.values():
        assert run.html.is_file(), run.stdout
        assert f"html report: {run.html}" in run.stdout.splitlines()
        assert run.html.read_text() == report_of(run.results), "not the document's report"
    assert runs["dynamic"].html.parent == runs["dynamic"].results.parent


def test_a_judged_dynamic_run_shows_dimensions_skills_and_judges(runs: dict[str, Run]) -> None:
    document = runs["dynamic"].document()
    text = report_of(runs["dynamic"].results)
    page = Page(text)
    assert sections(page) == set(SECTIONS) - {"nversion", "ranking"}
    assert page.plots == ["dimensions", "heatmap", "status", "pass-ratio", "judges", "latency"]
    summary = document["summary"]
    assert f'id="score">{summary["overall_score"]:.1f}<span>/100' in text
    assert f'95% CI {summary["ci95"]["low"]:.1f}–{summary["ci95"]["high"]:.1f}' in text
    judges = [row[0] for row in page.rows["judge-table"]]
    assert judges == ["r2r/static", "fake/judge-a", "fake/judge-b"]
    assert [row[4] for row in page.rows["usage-table"]][-1].startswith("$"), "judges' cost"
    skills = {s for item in document["items"] for s in item["requirement"]["metadata"]["skills"]}
    assert set(re.findall(r'<option value="([a-z-]+)">\1</option>', text)) >= skills
    assert len(page.rows["item-table"]) == len(document["items"])


def test_a_humaneval_run_leaves_out_what_it_has_no_data_for(runs: dict[str, Run]) -> None:
    document = runs["humaneval"].document()
    page = Page(report_of(runs["humaneval"].results))
    assert sections(page) == {"overview", "statuses", "pass-ratio", "usage", "items"}
    assert "filter-skill" not in page.ids
    statuses = {item["status"] for item in document["items"]}
    assert {"success", "wrong_answer", "syntax_error", "runtime_error"} <= statuses
    (row,) = page.rows["datasets"]
    accepted = document["summary"]["phase0"]["humaneval"]["accepted_at_1"]
    assert row[:2] == ["humaneval", f"{100 * accepted:.1f}%"]


def test_an_nversion_run_shows_its_pattern_and_diversity_tables(runs: dict[str, Run]) -> None:
    document = runs["nversion"].document()
    page = Page(report_of(runs["nversion"].results))
    assert "nversion" in sections(page) and "patterns" in page.plots
    nv = document["summary"]["nversion"]
    assert page.rows["pattern-table"] == [
        [p["pattern"], p["family"], *(f"{p[k]:.3f}" for k in ("fr", "mcr", "ccr", "tpr", "afvr")),
         str(p["tasks"]), str(p["no_consensus"]), str(p["faults"]), str(p["missing"])]
        for p in nv["patterns"]]
    assert [row[0] for row in page.rows["pattern-table"]] == [
        *(f"Pat-CL{i}" for i in range(5)), *(f"Pat-AL{i}" for i in range(5))]
    diversity = page.rows["diversity-table"]
    assert [row[0] for row in diversity] == [d["task"] for d in nv["diversity"]] + ["mean"]
    assert diversity[-1][1] == f"{nv['mean_levenshtein']:.3f}"
    ensemble = next(d for d in details_of(report_of(runs["nversion"].results))
                    if d["nversion"] and d["nversion"]["role"] == "ensemble"
                    and d["nversion"]["faults"])
    assert ensemble["nversion"]["pattern"].startswith("Pat-")


def test_a_ranking_run_shows_its_ranking_table_groups_and_rank_interval_plot(
    runs: dict[str, Run]
) -> None:
    document = runs["ranking"].document()
    text = report_of(runs["ranking"].results)
    page = Page(text)
    assert sections(page) == {"overview", "ranking", "statuses", "pass-ratio", "usage", "items"}
    assert page.plots[0] == "ranking"
    ranking = document["summary"]["ranking"]
    rows = ranking["models"]
    assert sorted(row["model"] for row in rows) == sorted(RANKED)
    assert page.rows["ranking-table"] == [
        [str(r["rank"]), f"{r['rank_low']}–{r['rank_high']}", str(r["group"]), r["model"],
         f"{r['score']:.1f}", f"{r['score_low']:.1f}–{r['score_high']:.1f}",
         "–" if i == 0 else f"{r['diff_to_leader']:+.1f}",
         "" if i == 0 else f"{r['diff_low']:+.1f} to {r['diff_high']:+.1f}",
         str(r["requirements"])] for i, r in enumerate(rows)]
    # seed 4: the reference and the 0.6 instrument tie, the 0.1 instrument is apart
    assert ranking["groups"] == [["r2r/reference", "r2r/degraded:0.6"], ["r2r/degraded:0.1"]]
    tied = re.search(r'<p id="ranking-tied">(.*?)</p>', text, re.DOTALL)
    assert tied and tied.group(1) == ("The data cannot separate: <code>r2r/reference</code> = "
                                      "<code>r2r/degraded:0.6</code>.")
    assert "paired: every model answered the same requirements" in text
    plot = text[text.index('data-plot="ranking"'):]
    plot = plot[:plot.index("</svg>")]
    for row in rows:  # each model labelled once on the shared axis
        assert plot.count(f">{row['model']}<") == 1, row["model"]
    assert plot.count('stroke-dasharray') >= 1, "no line between the two groups"


def test_a_run_of_one_model_has_no_ranking_section(runs: dict[str, Run]) -> None:
    for name in ("dynamic", "humaneval", "nversion"):
        text = report_of(runs[name].results)
        assert 'id="ranking"' not in text and 'href="#ranking"' not in text, name
        page = Page(text)
        assert {"model-scores", "usage-models", "judge-models", "dimensions-table"} \
            .isdisjoint(page.ids | set(page.rows)), name


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def _plot_labels(text: str, plot: str) -> list[str]:
    """The text elements of a plot, in order (labels and tick values)."""
    start = text.index(f'data-plot="{plot}"')
    return re.findall(r"<text[^>]*>([^<]*)</text>", text[start:text.index("</svg>", start)])


def test_a_run_of_several_models_shows_each_models_score_and_metrics_never_pooled(
    runs: dict[str, Run]
) -> None:
    document = runs["ranking"].document()
    summary, by_model = document["summary"], document["summary"]["by_model"]
    assert list(by_model) == list(RANKED)
    text = report_of(runs["ranking"].results)
    page = Page(text)
    assert page.rows["model-scores"] == [
        [model, f"{m['overall_score']:.1f}", f"{m['ci95']['low']:.1f}–{m['ci95']['high']:.1f}",
         m["ci95"]["method"], f"{m['items_total']}/{m['items_planned']}",
         ", ".join(f"{s} {n}" for s, n in m["status_counts"].items() if n)]
        for model, m in by_model.items()]
    # no pooled score, interval or status chips: the pooled figure is nobody's
    assert 'id="score"' not in text and 'class="chips"' not in text
    assert f"{summary['overall_score']:.1f}<span>/100" not in text
    assert "<title>req2rank " in text and f" · {len(by_model)} models</title>" in text
    # the Phase-0 table: a row per dataset and model, each model's own figures
    assert page.rows["datasets"] == [
        [dataset, model, _pct(m["phase0"][dataset]["accepted_at_1"]),
         ", ".join(f"{k} {_pct(v)}" for k, v in m["pass_at_k"][dataset]["values"].items()),
         *page.rows["datasets"][i][4:]]
        for i, (dataset, model, m) in enumerate(
            (d, model, m) for d in summary["phase0"] for model, m in by_model.items())]
    for row, m in zip(page.rows["datasets"], by_model.values(), strict=True):
        p0 = m["phase0"]["humaneval"]
        assert row[5] == _pct(p0["exec_success_rate"])
        assert row[6].split(" / ")[4] == _pct(p0["wrong_answer_rate"])
    accepted = {model: m["phase0"]["humaneval"]["accepted_at_1"] for model, m in by_model.items()}
    assert len(set(accepted.values())) == 3, "the instruments' figures would not tell apart"
    # statuses and pass ratio: a bar (series) per model; latency: each phase per model
    assert [label for label in _plot_labels(text, "status") if label in by_model] == list(RANKED)
    assert [label for label in _plot_labels(text, "pass-ratio") if label in by_model] \
        == list(RANKED)
    assert {f"item total · {model}" for model in RANKED} <= set(_plot_labels(text, "latency"))
    # calls: the target's per model, and each model's totals
    assert page.rows["usage-table"][:3] == [
        [f"target {model}", str(m["totals_by_role"]["target"]["calls"]), "unknown", "unknown",
         "unknown"] for model, m in by_model.items()]
    assert page.rows["usage-table"][3][:2] == ["all (every model's)",
                                               str(summary["totals"]["calls"])]
    assert [row[:2] for row in page.rows["usage-models"]] == [
        [model, str(m["totals"]["calls"])] for model, m in by_model.items()]


def test_a_judged_run_of_several_models_shows_each_models_dimensions_skills_and_panel(
    runs: dict[str, Run]
) -> None:
    document = runs["judged-models"].document()
    by_model = document["summary"]["by_model"]
    assert list(by_model) == list(JUDGED_MODELS)
    text = report_of(runs["judged-models"].results)
    page = Page(text)
    assert sections(page) == set(SECTIONS) - {"nversion"}
    dimensions = page.rows["dimensions-table"]
    names = list(by_model[JUDGED_MODELS[0]]["dimensions"])
    assert [row[0] for row in dimensions] == names
    for column, m in enumerate(by_model.values(), start=1):
        assert [row[column].split(" (")[0] for row in dimensions] == [
            f"{m['dimensions'][name]:.1f}" for name in names]
    assert by_model[JUDGED_MODELS[0]]["dimensions"] != by_model[JUDGED_MODELS[1]]["dimensions"]
    assert page.plots.count("dimensions") == 1
    labels = _plot_labels(text, "dimensions")
    assert [label for label in labels if label in by_model] == list(JUDGED_MODELS)  # legend
    # a skill × complexity map per model, headed by its model
    assert page.plots.count("heatmap") == len(JUDGED_MODELS)
    skills = text[text.index('id="skills"'):text.index("</section>", text.index('id="skills"'))]
    assert re.findall(r"<h3>([^<]*)</h3>", skills) == list(JUDGED_MODELS)
    # the panel over each model's answers, and each judge's row per model
    assert page.rows["judge-models"] == [
        [model, str(m["judging"]["items_judged"]), str(m["judging"]["judge_failed"]),
         "n/a" if m["judging"]["sigma"] is None else f"{m['judging']['sigma']:.1f}",
         m["agreement"] or "n/a",
         ", ".join(f"{b} {n}" for b, n in m["judging"]["agreement_counts"].items())]
        for model, m in by_model.items()]
    assert [[row[0], row[1], row[6]] for row in page.rows["judge-table"]] == [
        [model, r["judge"], f"{r['mean_overall']:.1f}"]
        for model, m in by_model.items() for r in m["judging"]["per_judge"]]
    assert {f"r2r/static · {model}" for model in JUDGED_MODELS} <= set(
        _plot_labels(text, "judges"))


def _hostile(document: dict[str, Any]) -> dict[str, Any]:
    """A real document with hostile text in every free-text field a run can fill."""
    hostile = copy.deepcopy(document)
    hostile["run"]["model"] = HOSTILE
    hostile["summary"]["warnings"].append(HOSTILE)
    for item in hostile["items"]:
        item["reason"] = HOSTILE
        item["item_id"] = item["item_id"] + HOSTILE
        item["prompt"] = HOSTILE
        for test in item["tests"]:
            test["detail"] = HOSTILE
    return hostile


def test_run_content_is_escaped_everywhere(runs: dict[str, Run]) -> None:
    """Code, prompts, ids, reasons and model names never become markup: the page has the
    report's two script elements and no event handler, and the text comes back as text."""
    document = _hostile(runs["humaneval"].document())
    text = render_html(document)
    page = Page(text)
    assert page.scripts == [{"type": "application/json", "id": "r2r-details"}, {}]
    assert page.handlers == []
    assert "<img" not in text and "<!--" not in text
    assert "{{ 7*7 }} &amp; &amp;amp;" in text, "a template expression stays text"
    details = details_of(text)
    assert all(HOSTILE in d["id"] and d["reason"] == HOSTILE for d in details)
    assert all(HOSTILE in code for d in details for code in d["code"].values())


def test_the_ranking_escapes_model_names_in_its_table_and_plot(runs: dict[str, Run]) -> None:
    document = copy.deepcopy(runs["ranking"].document())
    ranking = document["summary"]["ranking"]
    renamed = {row["model"]: f"{row['model']}{HOSTILE}" for row in ranking["models"]}
    for row in ranking["models"]:
        row["model"] = renamed[row["model"]]
    ranking["groups"] = [[renamed[m] for m in group] for group in ranking["groups"]]
    text = render_html(document)
    page = Page(text)
    assert page.scripts == [{"type": "application/json", "id": "r2r-details"}, {}]
    assert page.handlers == [] and "<img" not in text
    assert [row[3] for row in page.rows["ranking-table"]] == [
        row["model"] for row in ranking["models"]]
    assert "{{ 7*7 }} &amp; &amp;amp;" in text


def test_every_section_of_a_judged_run_escapes_judge_and_dataset_names(runs: dict[str, Run]
                                                                      ) -> None:
    document = copy.deepcopy(runs["dynamic"].document())
    document["summary"]["judging"]["per_judge"][0]["judge"] = HOSTILE
    for item in document["items"]:
        item["dataset"] = HOSTILE  # into the plots' labels too
        for verdict in item["judges"]:
            verdict["rationale"] = HOSTILE
    page = Page(render_html(document))
    assert len(page.scripts) == 2 and page.handlers == []
    assert page.rows["judge-table"][0][0] == HOSTILE


def test_write_html_makes_the_directory_and_leaves_no_temporary_file(
    runs: dict[str, Run], tmp_path: Path
) -> None:
    """(The same document gives the same bytes in another process: the first test compares
    the plugin's report with one rendered here.)"""
    run = runs["humaneval"]
    written = write_html(run.document(), tmp_path / "a" / "b" / "report.html")
    assert written == tmp_path / "a" / "b" / "report.html"
    assert written.read_text() == run.html.read_text()
    assert [p.name for p in written.parent.iterdir()] == ["report.html"]


def test_an_invalid_document_is_refused_with_where(runs: dict[str, Run]) -> None:
    document = runs["humaneval"].document()
    del document["items"][0]["status"]
    with pytest.raises(InvalidResults, match="^items/0: "):
        render_html(document)


def test_a_run_with_nothing_scored_says_so_and_leaves_out_its_plots(runs: dict[str, Run]
                                                                    ) -> None:
    """Every item lost to infrastructure: no score, no interval, no test ran."""
    document = copy.deepcopy(runs["humaneval"].document())
    for item in document["items"]:
        item.update(status="api_error", score=None, tests=[], tests_passed=0, tests_total=0,
                    pass_ratio=0.0, code={}, reason="provider unreachable")
    counts = document["summary"]["status_counts"]
    counts.update(dict.fromkeys(counts, 0), api_error=len(document["items"]))
    document["summary"].update(overall_score=None, ci95=None)
    text = render_html(document)
    page = Page(text)
    assert 'id="score">n/a<' in text and "no item was scored" in text
    assert sections(page) == {"overview", "statuses", "usage", "items"}
    assert {d["status"] for d in details_of(text)} == {"api_error"}


@pytest.mark.filterwarnings("error:constrained_layout not applied")
def test_each_models_sections_escape_model_names(runs: dict[str, Run]) -> None:
    """Hostile text an item id can carry as its model (no whitespace, no brackets), long
    enough that a plot drawing it whole would have no room left for its axes."""
    document = copy.deepcopy(runs["judged-models"].document())
    hostile = ("</script><script>window.__pwned=1</script><img/src=x/onerror=\"window.__pwned"
               "=2\">{{7*7}}&amp;<!--'")
    renamed = {model: f"{model}{hostile}" for model in JUDGED_MODELS}
    summary = document["summary"]
    summary["by_model"] = {renamed[m]: own for m, own in summary["by_model"].items()}
    for item in document["items"]:
        base, model = item["item_id"].rsplit("@", 1)
        item["item_id"] = f"{base}@{renamed[model]}"
    text = render_html(document)
    page = Page(text)
    assert page.scripts == [{"type": "application/json", "id": "r2r-details"}, {}]
    assert page.handlers == [] and "<img" not in text
    names = list(renamed.values())
    for table in ("model-scores", "judge-models", "usage-models"):
        assert [row[0] for row in page.rows[table]] == names, table
    assert [row[1] for row in page.rows["datasets"]] == names
    skills = text[text.index('id="skills"'):text.index("</section>", text.index('id="skills"'))]
    assert [html.unescape(h) for h in re.findall(r"<h3>([^<]*)</h3>", skills)] == names
    for plot in ("status", "judges", "latency", "dimensions"):  # labels cut at 36 characters
        assert any("r2r/degraded:0.5</" in label
                   for label in map(html.unescape, _plot_labels(text, plot))), plot
    assert "{{7*7}}&amp;amp;" in text


def test_the_report_states_the_difference_the_run_could_detect(runs: dict[str, Run]) -> None:
    for name in ("dynamic", "ranking"):
        document = json.loads(runs[name].results.read_text())
        found = document["summary"]["detectable_difference"]
        assert found is not None, name
        text = html.unescape(report_of(runs[name].results))
        assert f"Detectable difference: {found['points']:.1f} points against" in text, name
        assert ("paired on the" in text) == (found["basis"] != "like-model"), name
