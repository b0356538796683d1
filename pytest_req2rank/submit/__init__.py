"""Submitting runs to a leaderboard hub: the nonce, the evidence chain, the upload, the
receipt; signing in (:func:`login`) and retrying a kept submission (:func:`submit_run`)."""

from ._client import HubClient, HubError
from ._login import LoginError, login
from ._run import (
    TOKEN_ENV,
    URL_ENV,
    RunSubmission,
    SubmissionOutcome,
    SubmitError,
    hub_token,
    retry_command,
    submit_run,
)
from ._tokens import config_dir, store_token, stored_token

__all__ = [
    "TOKEN_ENV",
    "URL_ENV",
    "HubClient",
    "HubError",
    "LoginError",
    "RunSubmission",
    "SubmissionOutcome",
    "SubmitError",
    "config_dir",
    "hub_token",
    "login",
    "retry_command",
    "store_token",
    "stored_token",
    "submit_run",
]
