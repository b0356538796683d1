"""Submitting runs to a leaderboard hub: the nonce, the evidence chain, the upload, the
receipt; signing in (:func:`login`) and retrying a kept submission (:func:`submit_run`)."""

from ._client import HubClient, HubError
from ._login import LoginError, login
from ._run import URL_ENV, RunSubmission, SubmissionOutcome, SubmitError, hub_token, submit_run

__all__ = [
    "URL_ENV",
    "HubClient",
    "HubError",
    "LoginError",
    "RunSubmission",
    "SubmissionOutcome",
    "SubmitError",
    "hub_token",
    "login",
    "submit_run",
]
