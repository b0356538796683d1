"""``req2rank login`` and ``req2rank submit RUN_ID``: sign in to a leaderboard hub, and send
(again) a run made with ``--r2r-submit``."""

from __future__ import annotations

import argparse
import os

from ..submit import URL_ENV, HubError, LoginError, SubmitError, login, submit_run
from ._command import EXIT_OK, Command, CommandError

EXIT_NOT_TAKEN = 1
"""The hub answered but did not take the submission (refused), or did not answer (kept)."""


def add_login_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("hub", nargs="?", metavar="URL",
                        help=f"The hub (default: ${URL_ENV})")


def run_login(args: argparse.Namespace) -> int:
    hub = args.hub or os.environ.get(URL_ENV)
    if not hub:
        raise CommandError(f"no hub URL: pass it (req2rank login URL) or set {URL_ENV}")
    try:
        login(hub)
    except (LoginError, HubError) as exc:
        raise CommandError(str(exc)) from None
    return EXIT_OK


def add_submit_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID", help="A run made with --r2r-submit")
    parser.add_argument("--hub", metavar="URL",
                        help="The hub (default: the one the run was made for)")
    parser.add_argument("--token", help="Hub token (default: $R2R_HUB_TOKEN, else the login's)")


def run_submit(args: argparse.Namespace) -> int:
    try:
        outcome = submit_run(args.db, args.run_id, args.hub, args.token)
    except (SubmitError, HubError) as exc:
        raise CommandError(str(exc)) from None
    url = f" - {outcome.url}" if outcome.url else ""
    print(f"submission of run {outcome.run_id}: {outcome.status}{url} ({outcome.message})")
    if outcome.retry:
        print(f"everything is kept; retry with: {outcome.retry}")
    return EXIT_OK if outcome.kept else EXIT_NOT_TAKEN


COMMANDS = (
    Command("login", "Sign in to a leaderboard hub with GitHub (device flow); the token is "
            "kept for --r2r-submit and req2rank submit", add_login_arguments, run_login),
    Command("submit", "Send a run made with --r2r-submit to its hub (again)",
            add_submit_arguments, run_submit),
)
