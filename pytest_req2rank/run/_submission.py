"""A run submitted to a leaderboard hub: the nonce before the plan, the evidence as items are
kept, the upload once the results are written."""

from __future__ import annotations

from ..plan import declared_settings
from ..settings import Settings, SettingsError
from ..submit import HubError, RunSubmission, SubmissionOutcome
from ._controller import Controller


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
    if settings.models:
        raise SettingsError(f"--r2r-model={settings.models_text} with --r2r-submit: the hub "
                            "ranks one model per submitted run; submit each model's run on its "
                            "own, with one --r2r-model")
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


def send(controller: Controller, submission: RunSubmission
         ) -> tuple[SubmissionOutcome | None, str | None]:
    """Send the run ``controller`` finished, and keep what was sent and the hub's receipt in
    the store: the hub's answer, or why nothing was sent."""
    document = controller.document
    if document is None:
        submission.client.close()
        return None, "no item finished, so there is nothing to submit"
    from ..store import Store  # loaded already: the controller kept the items in it

    path = controller.paths.store
    try:
        store = Store(path)
    except Exception as exc:  # noqa: BLE001 - any store failure: the results JSON is kept
        submission.client.close()
        return None, (f"could not open the store {path} to keep the submission ({exc}); "
                      f"the results are in {controller.paths.results}")
    try:
        return submission.finish(document, store, path), None
    finally:
        store.close()
