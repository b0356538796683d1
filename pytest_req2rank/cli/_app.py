"""The ``req2rank`` command line: one subcommand per row of :data:`COMMANDS`."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from ..errors import Req2RankError
from . import _history, _hub, _ranking, _reports
from ._command import EXIT_ERROR, EXIT_OK, Command
from ._stored_runs import default_store

COMMANDS: tuple[Command, ...] = (*_history.COMMANDS, *_ranking.COMMANDS, *_reports.COMMANDS,
                                 *_hub.COMMANDS)
"""Every subcommand; a command group adds its module's ``COMMANDS`` here."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="req2rank", description="Look back at the runs of pytest-req2rank kept in its store, "
        "and submit them to a leaderboard hub")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    store = argparse.ArgumentParser(add_help=False)
    store.add_argument("--db", type=Path, default=default_store(), metavar="PATH",
                       help="The store (default: R2R_DB, else req2rank.db in R2R_DIR, else "
                       ".req2rank/req2rank.db here: where a run writes it)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        sub = commands.add_parser(command.name, help=command.help, description=command.help,
                                  parents=[store])
        command.add_arguments(sub)
        sub.set_defaults(run=command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; a mistake or an unreadable input is one line on stderr, exit 2."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except Req2RankError as exc:
        print(f"req2rank {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # the output piped into a reader that stopped (| head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
