"""Before the first item: can the run write its outputs? One line naming the option if not."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..settings import Settings, SettingsError

if TYPE_CHECKING:
    from ._controller import OutputPaths


def check_outputs(settings: Settings, paths: OutputPaths, *, creating: bool = True) -> None:
    """Raise :class:`SettingsError` unless the store, the results JSON and the Q&A log can be
    written where the settings put them. Creates their directories; changes no file.

    ``creating=False``: check only the outputs whose check creates no directory (theirs
    exists, or cannot be made); a run makes these checks before it is planned, so that a
    mistake found while planning leaves no directory behind."""
    results_option = "--r2r-json" if settings.json_path else "--r2r-dir"
    checks: list[tuple[Path, Callable[[], None]]] = [
        (paths.store.parent, lambda: _check_store(paths.store, settings)),
        (paths.results.parent, lambda: _check_file(paths.results, results_option)),
        (paths.qa_log.parent, lambda: _check_directory(paths.qa_log.parent, "--r2r-dir")),
    ]
    if paths.html is not None:
        html, option = paths.html, "--r2r-html" if isinstance(settings.html, Path) else results_option
        checks.append((html.parent, lambda: _check_html(html, option)))
    for directory, check in checks:
        if creating or _creates_nothing(directory):
            check()


def _creates_nothing(directory: Path) -> bool:
    """Whether checking ``directory`` creates none: it exists, or the nearest path above it
    that exists is not a directory."""
    if directory.exists():
        return True
    above = next((parent for parent in directory.parents if parent.exists()), None)
    return above is not None and not above.is_dir()


def _check_store(path: Path, settings: Settings) -> None:
    from ..store import StoreUnusable, check_store  # the controller's, not a worker's, import

    try:
        check_store(path)
    except StoreUnusable as exc:
        raise SettingsError(f"{'--r2r-db' if settings.db else '--r2r-dir'}: {exc}") from None


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
