"""The controller side of a run: collects item results, keeps them safe, writes the outputs."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path

from .. import __version__
from ..models import ItemResult
from ..plan import RunPlan
from ..report import (
    ResultsDocument,
    RunInfo,
    append_qa,
    build_summary,
    qa_record,
    write_results,
)
from ..settings import Settings
from ..store import Store


class OutputPaths:
    """Where a run writes: results JSON, Q&A log and the store (defaults under ``.req2rank/``)."""

    def __init__(self, settings: Settings, plan: RunPlan, rootdir: Path) -> None:
        base = _absolute(settings.dir, rootdir)
        run_dir = base / "runs" / plan.run_id
        self.results = _absolute(settings.json_path, rootdir) if settings.json_path else run_dir / "results.json"
        self.qa_log = run_dir / "qa.jsonl"
        self.store = _absolute(settings.db, rootdir) if settings.db else base / "req2rank.db"


def _absolute(path: Path, rootdir: Path) -> Path:
    path = path.expanduser()
    return path if path.is_absolute() else rootdir / path


class Controller:
    """Receives every finished item (from xdist reports or in-process) and owns the outputs."""

    def __init__(self, settings: Settings, plan: RunPlan, rootdir: Path, sandbox_info: str) -> None:
        self.settings = settings
        self.plan = plan
        self.paths = OutputPaths(settings, plan, rootdir)
        self.sandbox_info = sandbox_info
        self.items: dict[str, ItemResult] = {}
        self.started_at = datetime.now(timezone.utc)
        self._t0 = time.perf_counter()
        self._store: Store | None = None
        self.document: ResultsDocument | None = None
        self.write_error: str | None = None

    def record(self, item: ItemResult) -> None:
        """Keep one finished item: in memory, in the store and in the Q&A log, immediately."""
        self.items[item.item_id] = item
        store = self._open_store()
        store.add_item(self.plan.run_id, item)
        append_qa(
            self.paths.qa_log,
            qa_record(item, temperature=self.settings.temperature,
                      max_new_tokens=self.settings.max_tokens),
        )

    def _open_store(self) -> Store:
        if self._store is None:
            self._store = Store(self.paths.store)
            self._store.start_run(
                run_id=self.plan.run_id,
                started_at=self.started_at.isoformat(timespec="seconds"),
                model=self.plan.model,
                suite=self.plan.suite,
                seed=self.plan.seed,
                plan=self.plan.model_dump(mode="json"),
            )
        return self._store

    def finish(self, *, interrupted: bool) -> ResultsDocument | None:
        """Summarize and write the results JSON; ``None`` when no item ran."""
        if not self.items:
            return None
        order = {item_id: index for index, item_id in enumerate(self.plan.item_ids)}
        items = sorted(self.items.values(), key=lambda i: order.get(i.item_id, len(order)))
        wall = time.perf_counter() - self._t0
        summary = build_summary(items, planned=len(self.plan.item_ids), wall_time_s=wall)
        finished_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.document = ResultsDocument(
            run=RunInfo(
                id=self.plan.run_id,
                seed=self.plan.seed,
                model=self.plan.model,
                suite=self.plan.suite,
                sandbox=self.sandbox_info,
                plugin_version=__version__,
                started_at=self.started_at.isoformat(timespec="seconds"),
                finished_at=finished_at,
                settings=self.settings.model_dump(mode="json", by_alias=True),
            ),
            summary=summary,
            items=items,
        )
        try:
            write_results(self.document, self.paths.results)
        except OSError as exc:
            self.write_error = f"could not write {self.paths.results}: {exc.strerror or exc}"
        store = self._open_store()
        store.finish_run(
            self.plan.run_id,
            finished_at=finished_at,
            summary=summary.model_dump(mode="json"),
            status="interrupted" if interrupted else "finished",
        )
        store.close()
        self._store = None
        return self.document
