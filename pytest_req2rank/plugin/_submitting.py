"""``--r2r-submit``: the hub named on the command line, and the submission's exit status and
lines (the submission itself is the run's: :meth:`pytest_req2rank.run.Run.submit`)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from ..run import Run, SubmissionResult
from ..settings import SettingsError
from ..submit import URL_ENV, SubmitError, hub_token
from ._config import HUB_TOKEN_DEST, SUBMIT_DEST

EXIT_SUBMISSION_FAILED = 7
"""As an output that could not be written: the run is kept, its submission was not taken."""


def submission_target(config: pytest.Config) -> tuple[str, str]:
    """The hub's URL and token; a missing one is a one-line usage error, checked first."""
    url = (config.getoption(SUBMIT_DEST) or os.environ.get(URL_ENV, "")).strip()
    if not url:
        raise SettingsError(f"--r2r-submit: no hub URL; pass --r2r-submit=URL or set {URL_ENV}")
    if not url.startswith(("http://", "https://")):
        raise SettingsError(f"--r2r-submit={url}: expected the hub's http:// or https:// URL")
    try:
        return url, hub_token(url, config.getoption(HUB_TOKEN_DEST))
    except SubmitError as exc:
        raise SettingsError(f"--r2r-submit: {exc}") from None


class SubmitPlugin:
    """Sends the run once the controller has written its results, and says what became of it."""

    name = "req2rank-submit"

    def __init__(self, run: Run) -> None:
        self.run = run
        self.result: SubmissionResult | None = None

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.result = self.run.submit()
        if not self.result.taken and session.exitstatus in (pytest.ExitCode.OK,
                                                            pytest.ExitCode.TESTS_FAILED):
            session.exitstatus = EXIT_SUBMISSION_FAILED

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for line in self.lines():
            terminalreporter.write_line(line)

    def lines(self) -> list[str]:
        if self.result is None:
            return []
        if self.result.problem:
            return [f"req2rank: submission: not sent: {self.result.problem}"]
        outcome = self.result.outcome
        if outcome is None:
            return []
        where = f" {outcome.url}" if outcome.url else ""
        lines = [f"req2rank: submission: {outcome.status}{where} ({outcome.message})"]
        if outcome.retry:
            lines.append(f"req2rank: submission: everything is kept locally; retry with: "
                         f"{outcome.retry}")
        elif outcome.receipt:
            lines.append(f"req2rank: submission: signed receipt kept in the store "
                         f"{self.run.paths.store} "
                         f"(run {outcome.run_id})")
        return lines
