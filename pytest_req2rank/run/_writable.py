"""Before the first item: can the run write its outputs? One line naming the option if not."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..settings import Settings, SettingsError

if TYPE_CHECKING:
    from ._controller import OutputPaths


def check_outputs(settings: Settings, paths: OutputPaths) -> None:
    """Raise :class:`SettingsError` unless the store, the results JSON and the Q&A log can be
    written where the settings put them. Creates their directories; changes no file."""
    from ..store import StoreUnusable, check_store  # the controller's, not a worker's, import
    store_option = "--r2r-db" if settings.db else "--r2r-dir"
    try:
        check_store(paths.store)
    except StoreUnusable as exc:
        raise SettingsError(f"{store_option}: {exc}") from None
    results_option = "--r2r-json" if settings.json_path else "--r2r-dir"
    _check_file(paths.results, results_option)
    _check_directory(paths.qa_log.parent, "--r2r-dir")
    if paths.html is not None:
        _check_html(paths.html, "--r2r-html" if isinstance(settings.html, Path) else results_option)


def _check_html(path: Path, option: str) -> None:
    from ..report import html_report_problem  # as check_store

    problem = html_report_problem()
    if problem:
        raise SettingsError(f"--r2r-html: {problem}")
    _check_file(path, option, "report.html")


def _check_file(path: Path, option: str, example: str = "results.json") -> None:
    if path.is_dir():
        raise SettingsError(f"{option}: {path} is a directory; pass a file path, "
                            f"e.g. {path / example}")
    _check_directory(path.parent, option)
    if path.exists():
        try:
            with path.open("ab"):  # opens for writing, writes nothing
                pass
        except OSError as exc:
            raise SettingsError(
                f"{option}: {path} cannot be written ({exc.strerror or exc}); make it writable "
                "or pass another path"
            ) from None


def _check_directory(directory: Path, option: str) -> None:
    from ..store import directory_problem  # as check_store

    problem = directory_problem(directory)
    if problem:
        raise SettingsError(f"{option}: {problem}; pass a path in a writable directory")
