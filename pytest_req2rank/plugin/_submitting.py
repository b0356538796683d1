"""``--r2r-submit``: the nonce before the run, the evidence as items finish, the upload at
the end."""

from __future__ import annotations

import os
from typing import Any

import pytest

from ..plan import declared_settings
from ..settings import Settings, SettingsError
from ..submit import URL_ENV, HubError, RunSubmission, SubmissionOutcome, SubmitError, hub_token
from ._config import HUB_TOKEN_DEST, SUBMIT_DEST
from ._controller import Controller

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


def check_submittable(settings: Settings) -> None:
    """A submitted run's seed is drawn from the hub's nonce: the options that would fix it
    otherwise are one-line usage errors."""
    if settings.seed is not None:
        raise SettingsError(f"--r2r-seed={settings.seed} with --r2r-submit: a submitted run's "
                            "seed is drawn from the hub's nonce, so no one chooses its "
                            "requirements; drop --r2r-seed (or R2R_SEED, r2r_seed)")
    if settings.baseline is not None:
        raise SettingsError("--r2r-baseline with --r2r-submit: a baseline comparison reruns the "
                            "baseline's seed, a submitted run draws its seed from the hub's "
                            "nonce; run the comparison and the submission separately")
    if settings.resume is not None:
        raise SettingsError("--r2r-resume with --r2r-submit: a submitted run is planned from a "
                            "fresh nonce's seed, which a resumed run cannot take; run it again "
                            "with --r2r-submit")


def start_submission(target: tuple[str, str], run_id: str, settings: Settings
                     ) -> RunSubmission:
    """Fetch the run's nonce for its model and declared settings (on the controller, before
    the run is planned: the nonce draws its seed); an unreachable hub is a one-line usage
    error, before any cost."""
    url, token = target
    declared = declared_settings(str(settings.suite),
                                 settings.model_dump(mode="json", by_alias=True))
    try:
        return RunSubmission(url, token, run_id, model=str(settings.model), declared=declared)
    except HubError as exc:
        raise SettingsError(f"--r2r-submit: could not fetch a nonce: {exc}; the run needs one "
                            "before it starts (retry when the hub answers, or run without "
                            "--r2r-submit)") from None


class SubmitPlugin:
    """Sends the run once the controller has written its results, and says what became of it."""

    name = "req2rank-submit"

    def __init__(self, controller: Controller, submission: RunSubmission) -> None:
        self.controller, self.submission = controller, submission
        self.outcome: SubmissionOutcome | None = None
        self.problem: str | None = None

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        document = self.controller.document
        if document is None:
            self.problem = "no item finished, so there is nothing to submit"
            self.submission.client.close()
            return
        from ..store import Store  # loaded already: the controller kept the items in it

        path = self.controller.paths.store
        try:
            store = Store(path)
        except Exception as exc:  # noqa: BLE001 - any store failure: the results JSON is kept
            self.problem = (f"could not open the store {path} to keep the submission ({exc}); "
                            f"the results are in {self.controller.paths.results}")
            self.submission.client.close()
        else:
            try:
                self.outcome = self.submission.finish(document, store, path)
            finally:
                store.close()
        taken = self.outcome is not None and self.outcome.kept
        if not taken and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
            session.exitstatus = EXIT_SUBMISSION_FAILED

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for line in self.lines():
            terminalreporter.write_line(line)

    def lines(self) -> list[str]:
        if self.problem:
            return [f"req2rank: submission: not sent: {self.problem}"]
        outcome = self.outcome
        if outcome is None:
            return []
        where = f" {outcome.url}" if outcome.url else ""
        lines = [f"req2rank: submission: {outcome.status}{where} ({outcome.message})"]
        if outcome.retry:
            lines.append(f"req2rank: submission: everything is kept locally; retry with: "
                         f"{outcome.retry}")
        elif outcome.receipt:
            lines.append(f"req2rank: submission: signed receipt kept in the store "
                         f"{self.controller.paths.store} (run {outcome.run_id})")
        return lines
