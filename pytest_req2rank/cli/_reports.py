"""``req2rank report RUN_ID``: the reports of any stored run, written again (Markdown, HTML)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import report
from ..report import ResultsDocument, load_results, report_path, write_markdown
from ._command import EXIT_OK, Command, CommandError
from ._stored_runs import load_run, open_history

BESIDE_RESULTS = "beside the run's results JSON"
_DEFAULT = Path("\0default")
"""The value of --markdown or --html given without a path."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID", help="A run id, as `req2rank runs` lists them")
    parser.add_argument("--markdown", nargs="?", type=Path, const=_DEFAULT, metavar="PATH",
                        help=f"Write the Markdown report (default: report.md {BESIDE_RESULTS}); "
                        "the default when neither --markdown nor --html is given")
    parser.add_argument("--html", nargs="?", type=Path, const=_DEFAULT, metavar="PATH",
                        help=f"Write the HTML report (default: report.html {BESIDE_RESULTS})")


def run(args: argparse.Namespace) -> int:
    markdown, html = args.markdown, args.html
    if markdown is None and html is None:
        markdown = _DEFAULT
    write_html: Callable[[dict[str, Any], Path], Path] | None = getattr(report, "write_html", None)
    if html is not None and write_html is None:
        raise CommandError("--html: this installation of pytest-req2rank has no HTML report "
                           "(pytest_req2rank.report.write_html); use --markdown")
    with open_history(args.db) as history:
        stored = load_run(history, args.run_id)
    document = stored.document
    written: list[Path] = []
    try:
        if markdown is not None:
            path = report_path(stored.results) if markdown == _DEFAULT else markdown
            written.append(write_markdown(document, path, _baseline(document)))
        if html is not None and write_html is not None:  # checked before reading the store
            path = stored.results.with_name("report.html") if html == _DEFAULT else html
            path.parent.mkdir(parents=True, exist_ok=True)
            written.append(Path(write_html(document.model_dump(mode="json"), path)))
    except OSError as exc:
        raise CommandError(f"cannot write the report {exc.filename or ''} "
                           f"({exc.strerror or exc}); pass another PATH") from None
    for path in written:
        print(f"wrote {path}")
    return EXIT_OK


def _baseline(document: ResultsDocument) -> ResultsDocument | None:
    """The baseline run's results, for the before/after table's metrics, when still there."""
    comparison = document.summary.baseline
    if comparison is None:
        return None
    try:
        baseline = load_results(Path(comparison.path))
    except ValueError:
        return None
    return baseline if baseline.run.id == comparison.run_id else None


COMMANDS = (
    Command("report", "Write a stored run's reports again: --markdown [PATH], --html [PATH]",
            add_arguments, run),
)
