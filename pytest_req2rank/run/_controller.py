"""The controller side of a run: collects item results, keeps them safe, writes the outputs."""

from __future__ import annotations

import os
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from ..models import WEAK_ISOLATION, IsolationLevel, ItemId, ItemResult
from ..plan import RunPlan
from ..settings import Settings

if TYPE_CHECKING:
    from ..providers import PreflightReport
    from ..report import ResultsDocument, RunSummary
    from ..store import Store


def _load_machinery() -> None:
    """Import what keeps and summarizes the items (the controller's thread, class docstring)."""
    from .. import report  # noqa: F401
    from ..store import Store  # noqa: F401


def store_path(settings: Settings) -> Path:
    """The SQLite store: ``--r2r-db``, else ``req2rank.db`` in the output directory."""
    return settings.db or settings.dir / "req2rank.db"


class OutputPaths:
    """Where a run writes: results JSON, Q&A log, the store (defaults under ``.req2rank/``)
    and the HTML report when asked for. The settings' paths are absolute already (see
    ``settings.PathBases``)."""

    def __init__(self, settings: Settings, run_id: str) -> None:
        run_dir = settings.dir / "runs" / run_id
        self.results = settings.json_path or run_dir / "results.json"
        self.qa_log = run_dir / "qa.jsonl"
        self.store = store_path(settings)
        self.html: Path | None = html_path(settings, self.results)


def html_path(settings: Settings, results: Path) -> Path | None:
    """The HTML report: ``--r2r-html=PATH``; with ``--r2r-html`` alone, next to the results
    JSON (``report.html`` in the run directory, or the ``--r2r-json`` file's name with
    ``.html``); ``None`` when no report is asked for."""
    if isinstance(settings.html, Path):
        return settings.html
    if not settings.html:
        return None
    if settings.json_path is None:
        return results.with_name("report.html")
    return results.with_suffix(".html") if results.suffix != ".html" else results.with_name(
        results.name + ".html")


def weak_isolation_warning(level: IsolationLevel, sandbox: str) -> str:
    """The warning a run under a weaker sandbox carries in its header, summary and results."""
    what = ("network and pid namespaces, but the host's files in view" if level == "namespaces"
            else "resource limits only: the host's files, network and processes in view")
    return (f"sandbox isolation {level!r} ({what}), weaker than the default 'full', "
            f"chosen by --r2r-sandbox={sandbox}; this run's results are marked with it")



def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _write_text(path: Path, text: str) -> bool:
    """Write ``text`` to ``path`` (creating its directory); False when it cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError:
        return False
    return True


def _write_temporary(text: str, prefix: str) -> Path | None:
    """Write ``text`` to a new file of the temporary directory (an unpredictable name: no
    one else's file or link is overwritten); None when it cannot be written."""
    try:
        handle, name = tempfile.mkstemp(prefix=prefix, suffix="-results.json")
        with os.fdopen(handle, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError:
        return None
    return Path(name)


class Controller:
    """Receives every finished item (from xdist reports or in-process) and owns the outputs.

    ``baseline`` is the results document of the run this one repeats (``--r2r-baseline``);
    ``finished`` are the items a resumed run had already finished, ``kept`` the ids of those
    it keeps (the others, lost to infrastructure, run again).

    The store and the report machinery (sqlite-utils, numpy, the schema validator) are
    imported by a thread of their own started when the controller is made, and waited for
    before an item is kept or the run finished. A Ctrl-C reaches only the main thread: it
    cannot tear those imports (numpy's cannot be redone in the same process), which the
    summary an interrupted run still writes needs; and xdist's workers start meanwhile.
    """

    def __init__(
        self,
        settings: Settings,
        plan: RunPlan,
        sandbox_info: str,
        isolation: IsolationLevel,
        *,
        baseline: tuple[Path, ResultsDocument] | None = None,
        finished: list[ItemResult] | None = None,
        kept: frozenset[str] = frozenset(),
    ) -> None:
        self._machinery = threading.Thread(target=_load_machinery, name="req2rank-outputs")
        self._machinery.start()
        self.settings = settings
        self.plan = plan
        self.paths = OutputPaths(settings, plan.run_id)
        self.sandbox_info = sandbox_info
        self.isolation: IsolationLevel = isolation
        self.baseline = baseline
        self.items: dict[str, ItemResult] = {item.item_id: item for item in finished or []}
        self.kept = kept
        self.run_now: set[str] = set()
        """The items this session finished."""
        self.started_at = datetime.now(UTC)
        self._t0 = time.perf_counter()
        self._store: Store | None = None
        self._store_failed = False
        self.document: ResultsDocument | None = None
        self.warnings: list[str] = []
        """Warnings known at configuration (an N-version run's repeated versions)."""
        self.report_lines: list[str] = []
        """What the reports (Markdown, Q&A samples, W&B) wrote, for the summary."""
        self.listeners: list[Callable[[ItemResult], None]] = []
        """Called with each item as it is kept (the evidence chain of a submitted run)."""
        self.output_errors: dict[str, str] = {}
        """What could not be written (``store``, ``qa log``, ``results``), and where it is instead."""
        self.preflight: PreflightReport | None = None
        """The models' check before the first item, when it ran."""
        self.stopped: str | None = None
        """Why the run stopped early: a model failed for good (see ``providers.run_stop_reason``)."""

    def stop(self, reason: str) -> bool:
        """Note that the run stops because of ``reason``; False when it was stopping already."""
        if self.stopped is not None:
            return False
        self.stopped = reason
        return True

    @property
    def gate_failed(self) -> bool:
        return self.document is not None and any(not g.passed for g in self.document.summary.gates)

    def record(self, item: ItemResult) -> None:
        """Keep one finished item: in memory, in the store and in the Q&A log, immediately."""
        known = self.items.get(item.item_id)
        self.items[item.item_id] = item
        if known is not None and known.finished_at == item.finished_at:
            return  # a resumed run reporting an item it had already kept
        self.run_now.add(item.item_id)
        self._machinery.join()
        from .. import report  # loaded by then (class docstring)

        self._in_store(lambda store: store.add_item(self.plan.run_id, item))
        for listener in self.listeners:
            listener(item)
        try:
            report.append_qa(
                self.paths.qa_log,
                report.qa_record(item, temperature=self.settings.temperature,
                                 max_new_tokens=self.settings.max_tokens),
            )
        except OSError as exc:
            self.output_errors.setdefault(
                "qa log", f"could not write the Q&A log {self.paths.qa_log} ({_reason(exc)})")

    def _in_store(self, write: Callable[[Store], None]) -> bool:
        """Run ``write`` on the store; after a failure, note it once and stop using the store
        (each later attempt could wait out the busy timeout), so the run goes on."""
        if self._store_failed:
            return False
        try:
            write(self._open_store())
        except (sqlite3.Error, OSError) as exc:
            self._store_failed = True
            self.output_errors["store"] = f"could not write the store {self.paths.store} ({exc})"
            return False
        return True

    def _open_store(self) -> Store:
        if self._store is None:
            from ..store import Store  # loaded by then (class docstring)

            self._store = Store(self.paths.store)
            self._store.start_run(
                run_id=self.plan.run_id,
                started_at=self.started_at.isoformat(timespec="seconds"),
                model=self.plan.model,
                suite=self.plan.suite,
                seed=self.plan.seed,
                plan=self.plan.model_dump(mode="json"),
                settings=self.settings.model_dump(mode="json", by_alias=True),
                isolation=self.isolation,
                sandbox=self.sandbox_info,
                plugin_version=__version__,
            )
        return self._store

    def finish(self, *, interrupted: bool) -> ResultsDocument | None:
        """Summarize, apply the gates and write the results JSON; ``None`` when no item ran."""
        if not self.items:
            return None
        self._machinery.join()
        from ..report import (  # loaded by then (class docstring)
            ResultsDocument,
            RunInfo,
            in_plan_order,
            rank_items,
            ranking_section,
            resumed_run,
            stratified_sample,
            summarize_run,
            version_items,
        )

        items = in_plan_order(self.items.values(), self.plan.item_ids)
        wall = time.perf_counter() - self._t0
        summary = summarize_run(items, item_ids=self.plan.item_ids, nversion=self.plan.nversion,
                                wall_time_s=wall, seed=self.plan.seed,
                                preflight=self.preflight.usage if self.preflight else None)
        if self.stopped is not None:
            summary = summary.model_copy(update={"warnings": [
                *summary.warnings, stopped_warning(self.stopped, self.plan.run_id)]})
        if self.plan.nversion is not None:
            summary = summary.model_copy(update={"warnings": [*summary.warnings, *self.warnings]})
        summary = self._apply_gates(summary, items)
        if self.settings.qa_samples:  # of the items that measure the model, as the score
            summary = summary.model_copy(update={"qa_samples": stratified_sample(
                version_items(items), self.settings.qa_samples, self.plan.seed)})
        if self.isolation in WEAK_ISOLATION:
            summary = summary.model_copy(update={"warnings": [
                *summary.warnings, weak_isolation_warning(self.isolation, str(self.settings.sandbox))]})
        identical = self.settings.identical_samples_warning(self.plan.samples)
        if identical:
            summary = summary.model_copy(update={"warnings": [*summary.warnings, identical]})
        if self.settings.models:
            ranking = rank_items(items, seed=self.plan.seed)
            summary = summary.model_copy(update={"ranking": None if ranking is None else
                                                 ranking_section(ranking, seed=self.plan.seed)})
            if ranking is None:
                unranked = "no ranking: fewer than two of the run's models have a scored item"
                summary = summary.model_copy(update={"warnings": [*summary.warnings, unranked]})
        if self.settings.resume:
            summary = summary.model_copy(update={"resumed": resumed_run(
                items, kept=self.kept, run_now=self.run_now)})
        finished_at = datetime.now(UTC).isoformat(timespec="seconds")
        self.document = ResultsDocument(
            run=RunInfo(
                id=self.plan.run_id,
                seed=self.plan.seed,
                model=self.plan.model,
                suite=self.plan.suite,
                judges=list(self.settings.panel()),
                sandbox=self.sandbox_info,
                isolation=self.isolation,
                plugin_version=__version__,
                started_at=self.started_at.isoformat(timespec="seconds"),
                finished_at=finished_at,
                settings=self.settings.model_dump(mode="json", by_alias=True),
            ),
            summary=summary,
            items=items,
        )
        self._in_store(lambda store: store.finish_run(
            self.plan.run_id,
            finished_at=finished_at,
            summary=summary.model_dump(mode="json"),
            status="interrupted" if interrupted else "finished",
        ))
        if self._store is not None:
            self._store.close()
            self._store = None
        self._write_results(self.document)
        from ._reports import write_reports  # as the report above

        self.report_lines = write_reports(
            self.document, self.settings, results=self.paths.results, qa_log=self.paths.qa_log,
            html=self.paths.html, baseline=self.baseline[1] if self.baseline else None,
            errors=self.output_errors)
        return self.document

    def _write_results(self, document: ResultsDocument) -> None:
        """Write the results JSON; when it cannot be, keep it elsewhere and say where."""
        # loaded with the controller (class docstring)
        from ..report import InvalidResults, write_results

        results = self.paths.results
        try:
            write_results(document, results)
            return
        except InvalidResults as exc:
            problem = (f"the results failed schema validation at {exc.where} ({exc.message}) - "
                       "please report this as a bug")
            elsewhere = [results.with_name(results.name + ".invalid")]
        except OSError as exc:
            problem = f"could not write the results JSON {results} ({_reason(exc)})"
            elsewhere = [self.paths.qa_log.with_name("results.json")]
        text = document.model_dump_json(indent=2)
        kept = next((path for path in elsewhere if path != results and _write_text(path, text)),
                    None) or _write_temporary(text, f"req2rank-{self.plan.run_id}-")
        places = [f"written to {kept} instead"] if kept else []
        if not self._store_failed:
            places.append(f"its items are in the store {self.paths.store} (run {self.plan.run_id})")
        self.output_errors["results"] = f"{problem}; " + ("; ".join(places) or "nothing of it was kept")

    def _apply_gates(self, summary: RunSummary, items: list[ItemResult]) -> RunSummary:
        # loaded with the controller (class docstring)
        from ..report import GateReport, compare_runs, run_models
        from ..scoring import score_gate

        gates: list[GateReport] = []
        baseline_report = None
        settings = self.settings
        if settings.fail_under is not None:
            verdict = score_gate(
                summary.overall_score,
                summary.ci95.low if summary.ci95 else None,
                fail_under=settings.fail_under,
                gate_on=settings.gate_on,
            )
            gates.append(GateReport(name=verdict.name, passed=verdict.passed, message=verdict.message))
        if self.baseline is not None:
            path, document = self.baseline
            # a baseline of several models holds this run's model's answers (planning checked)
            model = self.plan.model if run_models(document) else None
            gate, baseline_report = compare_runs(document, items, path=path, model=model,
                                                 max_drop=settings.max_drop, seed=self.plan.seed)
            gates.append(gate)
        return summary.model_copy(update={"gates": gates, "baseline": baseline_report})


def stopped_warning(reason: str, run_id: str) -> str:
    """The results' warning of a run stopped because a model failed for good."""
    return (f"the run stopped early, because a model failed for good: {reason}; the items not "
            f"run are not in the score: fix the cause, then resume with --r2r-resume={run_id}")


def lost_item(controller: Controller, item_id: str, detail: str) -> ItemResult:
    """The result of an item whose worker crashed: infrastructure, kept and reported."""
    task_item_id, sample = controller.plan.split_item_id(item_id)
    parsed = ItemId.parse(item_id)
    lines = [line for line in detail.strip().splitlines() if line.strip()]
    return ItemResult(
        item_id=item_id,
        dataset=parsed.dataset,
        task_id=parsed.task,
        sample=sample,
        cluster=task_item_id,
        model=controller.plan.model,
        status="sandbox_error",
        reason="worker crashed while running this item: " + (lines[-1] if lines else "no detail"),
    )
